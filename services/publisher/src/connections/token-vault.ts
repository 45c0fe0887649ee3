import { setTimeout as sleep } from "node:timers/promises";
import type { Clock, TextSealer } from "@app/core";
import type { Database } from "@app/db";
import type { Platform } from "../contracts/post.ts";
import { PlatformError } from "../platforms/errors.ts";
import type { Adapters } from "../platforms/index.ts";
import {
  type ConnectionRow,
  type ConnectionSecrets,
  findConnection,
  type LeasedConnection,
  markNeedsReconnect,
  releaseRefreshLease,
  saveRefreshedTokens,
  secretsCodec,
  takeRefreshLease,
} from "../store/connections.ts";
import { refreshSecrets } from "./refresh.ts";

/** A connection with its secrets opened, ready for a call. */
export type OpenConnection = { row: ConnectionRow; secrets: ConnectionSecrets };

/** Hands out access tokens, refreshing them lazily under a per-connection lease. */
export interface TokenVault {
  /** The connection with an access token that is not about to expire (refreshed if it is). */
  open(connectionId: string): Promise<OpenConnection>;
  /** After the platform refused `rejectedToken`: a refreshed one (unless another caller refreshed already). */
  refreshRejected(connectionId: string, rejectedToken: string): Promise<OpenConnection>;
}

export type TokenVaultDeps = {
  db: Database;
  sealer: TextSealer;
  adapters: Adapters;
  clock: Clock;
  /** Refresh this long before the access token expires (default 5 minutes). */
  refreshSkewMs?: number;
  /**
   * How long a refresh's lease holds (default 2 minutes: longer than a refresh's platform calls,
   * two at most, each bounded by the platform client's timeout). Other callers wait for its result
   * until then, and take over after (its process died).
   */
  refreshLeaseMs?: number;
  /** How often a caller waiting for another's refresh looks again (default 100 ms). */
  refreshPollMs?: number;
};

/** The error a connection that must be connected again answers with. */
export function needsReconnect(platform: Platform, reason: string | null): PlatformError {
  return new PlatformError(
    platform,
    "reconnect",
    "CONNECTION_NEEDS_RECONNECT",
    reason ?? "The connection must be connected again.",
  );
}

/**
 * The token vault. A refresh never holds a transaction (nor a row lock, nor a pooled connection)
 * across the platform's call: a short statement takes the connection's refresh lease
 * (`refresh_until`, a new `token_version`) and reads the tokens as of it; the refresh runs with
 * no transaction open; a second short statement saves the new tokens only if the lease's version
 * still holds (compare-and-swap), in the same statement that ends the lease, so a rotated
 * refresh token is never lost. Concurrent callers (in any process) refresh once: the others wait
 * for the lease to end and take the saved tokens (or take the lease over once it has expired).
 * `invalid_grant` (or a refused app password) marks the connection `needs_reconnect`.
 */
export function createTokenVault(deps: TokenVaultDeps): TokenVault {
  const codec = secretsCodec(deps.sealer);
  const skew = deps.refreshSkewMs ?? 300_000;
  const leaseMs = deps.refreshLeaseMs ?? 120_000;
  const pollMs = deps.refreshPollMs ?? 100;
  const isFresh = (secrets: ConnectionSecrets) =>
    !secrets.expiresAt || Date.parse(secrets.expiresAt) - skew > deps.clock.now().getTime();

  /** Refreshes under the lease `leased`; undefined when the lease was lost meanwhile (look again). */
  async function refreshLeased(
    { row, version }: LeasedConnection,
    secrets: ConnectionSecrets,
  ): Promise<OpenConnection | undefined> {
    let next: ConnectionSecrets;
    try {
      next = await refreshSecrets(deps.adapters, row.platform, secrets);
    } catch (error) {
      if (!(error instanceof PlatformError && error.kind === "reconnect")) {
        // The platform's error is the one to report; a lease not released ends on its own.
        await releaseRefreshLease(deps.db, row.id, version).catch(() => false);
        throw error;
      }
      const reason = error.describe();
      const marked = await deps.db.transaction(async (tx) => {
        if (!(await releaseRefreshLease(tx, row.id, version))) return false;
        await markNeedsReconnect(tx, row.id, reason, deps.clock.now());
        return true;
      });
      if (!marked) return undefined;
      throw needsReconnect(row.platform, reason);
    }
    const merged: ConnectionSecrets = {
      ...secrets,
      ...next,
      refreshToken: next.refreshToken || secrets.refreshToken,
    };
    const saved = await saveRefreshedTokens(deps.db, {
      id: row.id,
      version,
      sealedTokens: codec.seal(row.id, merged),
      now: deps.clock.now(),
    });
    return saved && { row: saved, secrets: merged };
  }

  async function refreshUnderLease(
    connectionId: string,
    stillNeeded: (secrets: ConnectionSecrets) => boolean,
  ): Promise<OpenConnection> {
    // Bounds the wait in real time, whatever the clock: a lease held past it is a stuck one.
    const giveUpAt = Date.now() + leaseMs + pollMs * 10;
    for (;;) {
      const row = await findConnection(deps.db, connectionId);
      if (!row) throw new Error(`Connection ${connectionId} does not exist.`);
      if (row.status === "needs_reconnect") throw needsReconnect(row.platform, row.statusReason);
      const current = codec.open(row);
      if (!stillNeeded(current)) return { row, secrets: current };
      const now = deps.clock.now();
      const leased = await takeRefreshLease(deps.db, connectionId, now, new Date(now.getTime() + leaseMs));
      if (leased) {
        const secrets = codec.open(leased.row);
        if (leased.row.status === "needs_reconnect" || !stillNeeded(secrets)) {
          // Another caller finished between the read and the lease: look again.
          await releaseRefreshLease(deps.db, connectionId, leased.version);
          continue;
        }
        const opened = await refreshLeased(leased, secrets);
        if (opened) return opened;
        continue;
      }
      if (Date.now() > giveUpAt) {
        throw new PlatformError(
          row.platform,
          "transient",
          "TOKEN_REFRESH_BUSY",
          "Another refresh of this connection's tokens is still running.",
          { retryAfterMs: pollMs * 10 },
        );
      }
      await sleep(pollMs);
    }
  }

  return {
    async open(connectionId) {
      const row = await findConnection(deps.db, connectionId);
      if (!row) throw new Error(`Connection ${connectionId} does not exist.`);
      if (row.status === "needs_reconnect") throw needsReconnect(row.platform, row.statusReason);
      const secrets = codec.open(row);
      if (isFresh(secrets)) return { row, secrets };
      return refreshUnderLease(connectionId, (current) => !isFresh(current));
    },
    refreshRejected(connectionId, rejectedToken) {
      return refreshUnderLease(connectionId, (current) => current.accessToken === rejectedToken);
    },
  };
}

/**
 * Runs `call` with the connection's access token; when the platform refuses the token
 * (`unauthorized`), refreshes it and runs `call` once more. `alreadyOpened`: the connection as
 * the caller opened it moments ago in the same turn (saves reading it again).
 */
export async function withAccessToken<T>(
  vault: TokenVault,
  connectionId: string,
  call: (opened: OpenConnection) => Promise<T>,
  alreadyOpened?: OpenConnection,
): Promise<T> {
  const opened = alreadyOpened ?? (await vault.open(connectionId));
  try {
    return await call(opened);
  } catch (error) {
    if (!(error instanceof PlatformError) || error.kind !== "unauthorized") throw error;
    return call(await vault.refreshRejected(connectionId, opened.secrets.accessToken));
  }
}

import type { Clock, TextSealer } from "@app/core";
import type { Database } from "@app/db";
import type { Platform } from "../contracts/post.ts";
import { PlatformError } from "../platforms/errors.ts";
import type { Adapters } from "../platforms/index.ts";
import {
  type ConnectionRow,
  type ConnectionSecrets,
  findConnection,
  lockConnection,
  markNeedsReconnect,
  saveSealedTokens,
  secretsCodec,
} from "../store/connections.ts";
import { refreshSecrets } from "./refresh.ts";

/** A connection with its secrets opened, ready for a call. */
export type OpenConnection = { row: ConnectionRow; secrets: ConnectionSecrets };

/** Hands out access tokens, refreshing them lazily under a per-connection lock. */
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
 * The token vault. A refresh takes the connection's row lock (`SELECT … FOR UPDATE`), re-reads
 * the secrets and refreshes only if they still need it, so concurrent callers (in any process)
 * refresh once and a rotated refresh token is never lost: it is saved in the same transaction.
 * `invalid_grant` (or a refused app password) marks the connection `needs_reconnect`.
 */
export function createTokenVault(deps: TokenVaultDeps): TokenVault {
  const codec = secretsCodec(deps.sealer);
  const skew = deps.refreshSkewMs ?? 300_000;
  const isFresh = (secrets: ConnectionSecrets) =>
    !secrets.expiresAt || Date.parse(secrets.expiresAt) - skew > deps.clock.now().getTime();

  async function refreshUnderLock(
    connectionId: string,
    stillNeeded: (secrets: ConnectionSecrets) => boolean,
  ): Promise<OpenConnection> {
    const outcome = await deps.db.transaction(async (tx) => {
      const row = await lockConnection(tx, connectionId);
      if (!row) throw new Error(`Connection ${connectionId} does not exist.`);
      if (row.status === "needs_reconnect") return { error: needsReconnect(row.platform, row.statusReason) };
      const secrets = codec.open(row);
      if (!stillNeeded(secrets)) return { opened: { row, secrets } };
      let next: ConnectionSecrets;
      try {
        next = await refreshSecrets(deps.adapters, row.platform, secrets);
      } catch (error) {
        if (error instanceof PlatformError && error.kind === "reconnect") {
          const reason = error.describe();
          await markNeedsReconnect(tx, connectionId, reason, deps.clock.now());
          return { error: needsReconnect(row.platform, reason) };
        }
        throw error;
      }
      const merged: ConnectionSecrets = {
        ...secrets,
        ...next,
        refreshToken: next.refreshToken || secrets.refreshToken,
      };
      await saveSealedTokens(tx, connectionId, codec.seal(connectionId, merged), deps.clock.now());
      return { opened: { row, secrets: merged } };
    });
    if ("error" in outcome) throw outcome.error;
    return outcome.opened;
  }

  return {
    async open(connectionId) {
      const row = await findConnection(deps.db, connectionId);
      if (!row) throw new Error(`Connection ${connectionId} does not exist.`);
      if (row.status === "needs_reconnect") throw needsReconnect(row.platform, row.statusReason);
      const secrets = codec.open(row);
      if (isFresh(secrets)) return { row, secrets };
      return refreshUnderLock(connectionId, (current) => !isFresh(current));
    },
    refreshRejected(connectionId, rejectedToken) {
      return refreshUnderLock(connectionId, (current) => current.accessToken === rejectedToken);
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

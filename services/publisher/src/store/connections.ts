import { newId, type TextSealer } from "@app/core";
import type { Queryable } from "@app/db";
import type { Platform } from "../contracts/post.ts";
import { appendEvent } from "./events.ts";

/**
 * What a connection holds in secret, sealed as JSON in `connections.tokens` (bound to the
 * connection's id): OAuth tokens, or for Bluesky the session JWTs, the PDS and the app password.
 */
export type ConnectionSecrets = {
  accessToken: string;
  refreshToken?: string;
  expiresAt?: string;
  refreshExpiresAt?: string;
  scope?: string;
  /** Bluesky: the PDS, the account's DID and the app password (to sign in again). */
  service?: string;
  did?: string;
  appPassword?: string;
};

export type ConnectionRow = {
  id: string;
  accountId: string;
  platform: Platform;
  accountName: string;
  platformAccountId: string;
  sealedTokens: string;
  status: "active" | "needs_reconnect";
  statusReason: string | null;
};

const COLUMNS = `id, account_id AS "accountId", platform, account_name AS "accountName",
  platform_account_id AS "platformAccountId", tokens AS "sealedTokens", status, status_reason AS "statusReason"`;

/** Seals and opens a connection's secrets, bound to its id (a row's tokens copied elsewhere do not open). */
export function secretsCodec(sealer: TextSealer) {
  return {
    seal: (connectionId: string, secrets: ConnectionSecrets) =>
      sealer.seal(JSON.stringify(secrets), `connection:${connectionId}`),
    open: (row: Pick<ConnectionRow, "id" | "sealedTokens">): ConnectionSecrets =>
      JSON.parse(sealer.open(row.sealedTokens, `connection:${row.id}`)) as ConnectionSecrets,
  };
}

export async function findConnection(db: Queryable, id: string): Promise<ConnectionRow | undefined> {
  const [row] = await db.query<ConnectionRow>(`SELECT ${COLUMNS} FROM publisher.connections WHERE id = $1`, [
    id,
  ]);
  return row;
}

/** A connection whose refresh this caller leases: `version` names the lease (its compare-and-swap). */
export type LeasedConnection = { row: ConnectionRow; version: string };

/**
 * Takes the connection's refresh lease until `until`, unless another caller holds one that has
 * not ended by `now`: one short statement, no lock kept. Returns the connection as of the lease
 * (its tokens are the ones to refresh) and the lease's token version; undefined when another caller
 * holds the lease (or the connection does not exist).
 */
export async function takeRefreshLease(
  db: Queryable,
  id: string,
  now: Date,
  until: Date,
): Promise<LeasedConnection | undefined> {
  const [leased] = await db.query<ConnectionRow & { version: string }>(
    `UPDATE publisher.connections SET refresh_until = $3, token_version = token_version + 1
     WHERE id = $1 AND (refresh_until IS NULL OR refresh_until <= $2)
     RETURNING ${COLUMNS}, token_version::text AS version`,
    [id, now, until],
  );
  if (!leased) return undefined;
  const { version, ...row } = leased;
  return { row, version };
}

/**
 * Saves refreshed tokens and ends the lease, if the lease `version` still holds (no other caller
 * took the lease over, no reconnect replaced the tokens since). Returns the saved connection, or
 * undefined when the lease was lost (the tokens are not saved).
 */
export async function saveRefreshedTokens(
  db: Queryable,
  input: { id: string; version: string; sealedTokens: string; now: Date },
): Promise<ConnectionRow | undefined> {
  const [saved] = await db.query<ConnectionRow>(
    `UPDATE publisher.connections
     SET tokens = $3, updated_at = $4, refresh_until = NULL, token_version = token_version + 1
     WHERE id = $1 AND token_version = $2::int8
     RETURNING ${COLUMNS}`,
    [input.id, input.version, input.sealedTokens, input.now],
  );
  return saved;
}

/** Ends the refresh lease `version` without saving anything; false when it was no longer held. */
export async function releaseRefreshLease(db: Queryable, id: string, version: string): Promise<boolean> {
  const released = await db.query(
    `UPDATE publisher.connections SET refresh_until = NULL
     WHERE id = $1 AND token_version = $2::int8 RETURNING 1`,
    [id, version],
  );
  return released.length > 0;
}

/**
 * Marks a connection as needing the user to connect again (its grant was revoked or expired) and,
 * when it was active until now, writes its `connection.reconnect_required` event: run it in a
 * transaction (the outbox). `reason` is the platform's (`invalid_grant: …`), never a token.
 */
export async function markNeedsReconnect(
  tx: Queryable,
  id: string,
  reason: string,
  now: Date,
): Promise<void> {
  const [marked] = await tx.query<{
    accountId: string;
    platform: Platform;
    accountName: string;
    wasActive: boolean;
  }>(
    `UPDATE publisher.connections c SET status = 'needs_reconnect', status_reason = $2, updated_at = $3
     FROM (SELECT id, status FROM publisher.connections WHERE id = $1 FOR NO KEY UPDATE) previous
     WHERE c.id = previous.id
     RETURNING c.account_id AS "accountId", c.platform, c.account_name AS "accountName",
       previous.status = 'active' AS "wasActive"`,
    [id, reason, now],
  );
  if (!marked?.wasActive) return;
  await appendEvent(
    tx,
    {
      accountId: marked.accountId,
      type: "connection.reconnect_required",
      data: { connectionId: id, platform: marked.platform, accountName: marked.accountName, reason },
    },
    now,
  );
}

export type NewConnection = {
  accountId: string;
  platform: Platform;
  accountName: string;
  platformAccountId: string;
  secrets: ConnectionSecrets;
};

/**
 * Saves a connection made through a connect flow: a new row, or the existing one for the same
 * platform account made active again with the new secrets (a refresh still running then saves
 * nothing: its lease ends). A refresh token the platform did not send again is kept, never
 * replaced by an empty one. Runs in the caller's transaction.
 */
export async function upsertConnection(
  tx: Queryable,
  sealer: TextSealer,
  input: NewConnection,
  now: Date,
): Promise<{ id: string; created: boolean }> {
  const codec = secretsCodec(sealer);
  const [existing] = await tx.query<ConnectionRow>(
    `SELECT ${COLUMNS} FROM publisher.connections
     WHERE account_id = $1 AND platform = $2 AND platform_account_id = $3 FOR NO KEY UPDATE`,
    [input.accountId, input.platform, input.platformAccountId],
  );
  if (existing) {
    const previous = safeOpen(codec, existing);
    const secrets = { ...input.secrets, refreshToken: input.secrets.refreshToken || previous?.refreshToken };
    await tx.query(
      `UPDATE publisher.connections SET tokens = $2, account_name = $3, status = 'active', status_reason = NULL,
       updated_at = $4, refresh_until = NULL, token_version = token_version + 1 WHERE id = $1`,
      [existing.id, codec.seal(existing.id, secrets), input.accountName, now],
    );
    return { id: existing.id, created: false };
  }
  const id = newId("conn");
  await tx.query(
    `INSERT INTO publisher.connections (id, account_id, platform, account_name, platform_account_id, tokens,
       created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
    [
      id,
      input.accountId,
      input.platform,
      input.accountName,
      input.platformAccountId,
      codec.seal(id, input.secrets),
      now,
    ],
  );
  return { id, created: true };
}

function safeOpen(codec: ReturnType<typeof secretsCodec>, row: ConnectionRow): ConnectionSecrets | undefined {
  try {
    return codec.open(row);
  } catch {
    return undefined;
  }
}

import { createHash } from "node:crypto";
import { newId, newSecret } from "@app/core";
import type { Queryable } from "@app/db";
import { DEFAULT_QUEUE_SETTINGS, type QueueSettings } from "../domain/queue-slots.ts";
import { SCOPES, type Scope } from "../domain/scopes.ts";

/** The prefix of every publisher API key, so that a leaked one is recognisable. */
export const API_KEY_PREFIX = "pk";

export type Account = { id: string; name: string; timeZone: string; createdAt: Date };

/** Who a valid key speaks for, and what it may do. */
export type KeyHolder = { keyId: string; accountId: string; scopes: Scope[] };

/** A key's record, without the key (which is never kept). */
export type ApiKeyRecord = {
  id: string;
  accountId: string;
  label: string | null;
  scopes: Scope[];
  createdAt: Date;
  revokedAt: Date | null;
};

/** SHA-256 of a key, hex: what the database keeps instead of the key. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** Creates an account (its smart schedule starts at the defaults, in `timeZone` or UTC). */
export async function createAccount(
  db: Queryable,
  input: { name: string; id?: string; timeZone?: string },
): Promise<Account> {
  const [account] = await db.query<Account>(
    `INSERT INTO publisher.accounts (id, name, time_zone) VALUES ($1, $2, $3)
     RETURNING id, name, time_zone AS "timeZone", created_at AS "createdAt"`,
    [input.id ?? newId("acct"), input.name, input.timeZone ?? DEFAULT_QUEUE_SETTINGS.timeZone],
  );
  return account as Account;
}

export async function findAccount(db: Queryable, id: string): Promise<Account | undefined> {
  const [account] = await db.query<Account>(
    `SELECT id, name, time_zone AS "timeZone", created_at AS "createdAt" FROM publisher.accounts WHERE id = $1`,
    [id],
  );
  return account;
}

/**
 * Issues an API key for an account with `scopes` (all of them unless restricted). The key is
 * returned here once; only its SHA-256 is stored.
 */
export async function createApiKey(
  db: Queryable,
  input: { accountId: string; scopes?: readonly Scope[]; label?: string },
): Promise<{ id: string; key: string }> {
  const key = newSecret(API_KEY_PREFIX);
  const id = newId("key");
  const scopes = SCOPES.filter((scope) => (input.scopes ?? SCOPES).includes(scope));
  await db.query(
    "INSERT INTO publisher.api_keys (id, account_id, key_hash, label, scopes) VALUES ($1, $2, $3, $4, $5)",
    [id, input.accountId, hashApiKey(key), input.label ?? null, scopes],
  );
  return { id, key };
}

/** The holder of a key that exists and is not revoked. */
export async function authenticateApiKey(db: Queryable, key: string): Promise<KeyHolder | undefined> {
  const [holder] = await db.query<KeyHolder>(
    `SELECT id AS "keyId", account_id AS "accountId", scopes FROM publisher.api_keys
     WHERE key_hash = $1 AND revoked_at IS NULL`,
    [hashApiKey(key)],
  );
  return holder;
}

/** Revokes a key by id; false when there is no such active key. */
export async function revokeApiKey(db: Queryable, keyId: string, at: Date): Promise<boolean> {
  const rows = await db.query(
    "UPDATE publisher.api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id",
    [keyId, at],
  );
  return rows.length > 0;
}

/** An account's keys, oldest first (records only). */
export async function listApiKeys(db: Queryable, accountId: string): Promise<ApiKeyRecord[]> {
  return db.query<ApiKeyRecord>(
    `SELECT id, account_id AS "accountId", label, scopes, created_at AS "createdAt", revoked_at AS "revokedAt"
     FROM publisher.api_keys WHERE account_id = $1 ORDER BY created_at, id`,
    [accountId],
  );
}

/** The account's smart schedule: where queued posts go when a request names no settings. */
export async function queueSettingsOf(db: Queryable, accountId: string): Promise<QueueSettings> {
  const [row] = await db.query<QueueSettings>(
    `SELECT posts_per_day AS "postsPerDay", allowed_days AS "allowedDays", time_zone AS "timeZone"
     FROM publisher.accounts WHERE id = $1`,
    [accountId],
  );
  return row ?? DEFAULT_QUEUE_SETTINGS;
}

/** Replaces the account's smart schedule; false when there is no such account. */
export async function setQueueSettings(
  db: Queryable,
  accountId: string,
  settings: QueueSettings,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE publisher.accounts SET posts_per_day = $2, allowed_days = $3, time_zone = $4 WHERE id = $1 RETURNING id`,
    [accountId, settings.postsPerDay, settings.allowedDays, settings.timeZone],
  );
  return rows.length > 0;
}

import { type Clock, newId } from "@app/core";
import type { Queryable } from "@app/db";
import { DatabaseApiKeyStore } from "@app/edge";
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
  /** The key's first characters (`pk_a1b2`), empty for keys issued before they were kept. */
  prefix: string;
  label: string | null;
  scopes: Scope[];
  createdAt: Date;
  /** When the key was last used, to the minute. */
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

/**
 * The publisher's API keys: the shared API keys (`@app/edge`: 256-bit random secrets shown once,
 * kept as SHA-256 hashes, verified in constant time, scoped, revocable) in `publisher.api_keys`.
 */
export function publisherApiKeys(db: Queryable, clock?: Clock): DatabaseApiKeyStore<Scope> {
  return new DatabaseApiKeyStore<Scope>(db, {
    table: "publisher.api_keys",
    ownerColumn: "account_id",
    keyPrefix: API_KEY_PREFIX,
    clock,
  });
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
  const scopes = SCOPES.filter((scope) => (input.scopes ?? SCOPES).includes(scope));
  const issued = await publisherApiKeys(db).issue({ ownerId: input.accountId, label: input.label, scopes });
  return { id: issued.id, key: issued.key };
}

/** The holder of a key that exists and is not revoked (its last use recorded). */
export async function authenticateApiKey(
  keys: DatabaseApiKeyStore<Scope>,
  key: string,
): Promise<KeyHolder | undefined> {
  const verified = await keys.verify(key);
  return verified && { keyId: verified.keyId, accountId: verified.ownerId, scopes: verified.scopes };
}

/** Revokes a key by id; false when there is no such active key. */
export function revokeApiKey(db: Queryable, keyId: string, at: Date): Promise<boolean> {
  return publisherApiKeys(db).revoke(keyId, at);
}

/** An account's keys, oldest first (records only). */
export async function listApiKeys(db: Queryable, accountId: string): Promise<ApiKeyRecord[]> {
  return (await publisherApiKeys(db).list(accountId)).map(({ ownerId, ...record }) => ({
    ...record,
    accountId: ownerId,
  }));
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

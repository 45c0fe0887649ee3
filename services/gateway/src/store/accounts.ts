import { createHash } from "node:crypto";
import { newId, newSecret } from "@app/core";
import type { Queryable } from "@app/db";
import { noteRevocation } from "./revocations.ts";

/** The prefix of every gateway key, so a leaked one is recognisable (and secret scanners can match it). */
export const GATEWAY_KEY_PREFIX = "gwk";

/** Keys are `gwk_` + 43 base64url characters; anything much longer is refused without a lookup. */
export const MAX_KEY_LENGTH = 200;

/** How many characters of a key are kept to recognise it in a list: the prefix and 4 random ones. */
const SHOWN_PREFIX_LENGTH = GATEWAY_KEY_PREFIX.length + 5;

export type Account = { id: string; name: string; balanceMicro: bigint; createdAt: Date };

/** Who a valid gateway key speaks for. */
export type Caller = { accountId: string; keyId: string };

/** A key's record, without the key (which is never kept). */
export type KeyRecord = {
  id: string;
  accountId: string;
  prefix: string;
  label: string;
  createdAt: Date;
  revokedAt: Date | null;
};

/** A freshly issued key: the only moment the key itself exists outside the caller. */
export type IssuedKey = { id: string; accountId: string; label: string; key: string };

type AccountRow = { id: string; name: string; balance_micro: string; created_at: Date };

const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  name: row.name,
  balanceMicro: BigInt(row.balance_micro),
  createdAt: row.created_at,
});

const ACCOUNT_COLUMNS = "id, name, balance_micro::text AS balance_micro, created_at";

/** SHA-256 of a key, hex: what the database keeps instead of the key. */
export function hashKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** Gateway accounts and their keys: 256-bit random secrets, stored as SHA-256 hashes, revocable. */
export class AccountStore {
  constructor(private readonly db: Queryable) {}

  /** Opens an account with a zero balance (credit it through the ledger). */
  async create(name: string, id = newId("acct")): Promise<Account> {
    const [row] = await this.db.query<AccountRow>(
      `INSERT INTO gateway.accounts (id, name) VALUES ($1, $2) RETURNING ${ACCOUNT_COLUMNS}`,
      [id, name],
    );
    return toAccount(row as AccountRow);
  }

  async get(id: string): Promise<Account | undefined> {
    const [row] = await this.db.query<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM gateway.accounts WHERE id = $1`,
      [id],
    );
    return row ? toAccount(row) : undefined;
  }

  async list(): Promise<Account[]> {
    const rows = await this.db.query<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM gateway.accounts ORDER BY created_at, id`,
    );
    return rows.map(toAccount);
  }

  /** Issues a key for an account; the key is returned once and never again. */
  async issueKey(accountId: string, label = ""): Promise<IssuedKey> {
    const key = newSecret(GATEWAY_KEY_PREFIX);
    const id = newId("key");
    await this.db.query(
      "INSERT INTO gateway.api_keys (id, account_id, key_hash, prefix, label) VALUES ($1, $2, $3, $4, $5)",
      [id, accountId, hashKey(key), key.slice(0, SHOWN_PREFIX_LENGTH), label],
    );
    return { id, accountId, label, key };
  }

  /** Revokes a key; false when there is no such active key. Key caches of this process forget at once. */
  async revokeKey(keyId: string, at: Date): Promise<boolean> {
    noteRevocation();
    const rows = await this.db.query(
      "UPDATE gateway.api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING 1",
      [keyId, at],
    );
    noteRevocation();
    return rows.length > 0;
  }

  /** Revokes every active key of an account bearing `label`; how many. Key caches forget at once. */
  async revokeLabelled(accountId: string, label: string, at: Date): Promise<number> {
    noteRevocation();
    const rows = await this.db.query(
      `UPDATE gateway.api_keys SET revoked_at = $3
       WHERE account_id = $1 AND label = $2 AND revoked_at IS NULL RETURNING 1`,
      [accountId, label, at],
    );
    noteRevocation();
    return rows.length;
  }

  async listKeys(accountId: string): Promise<KeyRecord[]> {
    return this.db.query<KeyRecord>(
      `SELECT id, account_id AS "accountId", prefix, label, created_at AS "createdAt", revoked_at AS "revokedAt"
       FROM gateway.api_keys WHERE account_id = $1 ORDER BY created_at, id`,
      [accountId],
    );
  }

  /** The caller of a key that exists and is not revoked (uncached; the gateway uses `KeyCache`). */
  async authenticate(key: string): Promise<Caller | undefined> {
    if (key.length > MAX_KEY_LENGTH) return undefined;
    return (await this.lookupHash(hashKey(key)))?.caller;
  }

  /** The caller of an active key by its hash, and its account's balance, in one statement. */
  async lookupHash(keyHash: string): Promise<{ caller: Caller; balanceMicro: bigint } | undefined> {
    const [row] = await this.db.query<{ accountId: string; keyId: string; balance: string }>(
      `SELECT k.account_id AS "accountId", k.id AS "keyId", a.balance_micro::text AS balance
       FROM gateway.api_keys k JOIN gateway.accounts a ON a.id = k.account_id
       WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [keyHash],
    );
    return row
      ? { caller: { accountId: row.accountId, keyId: row.keyId }, balanceMicro: BigInt(row.balance) }
      : undefined;
  }
}

import { type Clock, newId, systemClock } from "@app/core";
import type { Queryable } from "@app/db";
import { DatabaseApiKeyStore, sameKeyHash } from "@app/edge";
import type { KeyAccess } from "../domain/key-policy.ts";
import { noteRevocation } from "./revocations.ts";

/** The prefix of every gateway key, so a leaked one is recognisable (and secret scanners can match it). */
export const GATEWAY_KEY_PREFIX = "gwk";

export type GatewayAccount = { id: string; name: string; balanceMicro: bigint; createdAt: Date };

/**
 * Who a valid gateway key speaks for; `keepRunOutput`: its account keeps its runs' outputs (read
 * with the key, so it costs a run no statement; a change shows within the key cache's second);
 * `access`: what the key's policy lets it reach (none given: every tool, at the default rate).
 */
export type Caller = { accountId: string; keyId: string; keepRunOutput?: boolean; access?: KeyAccess };

/** A key's record, without the key (which is never kept). */
export type KeyRecord = {
  id: string;
  accountId: string;
  prefix: string;
  label: string;
  createdAt: Date;
  /** When the key was last used, to the minute. */
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

/** A freshly issued key: the only moment the key itself exists outside the caller. */
export type IssuedGatewayKey = { id: string; accountId: string; label: string; key: string };

type AccountRow = { id: string; name: string; balance_micro: string; created_at: Date };

const toAccount = (row: AccountRow): GatewayAccount => ({
  id: row.id,
  name: row.name,
  balanceMicro: BigInt(row.balance_micro),
  createdAt: row.created_at,
});

const ACCOUNT_COLUMNS = "id, name, balance_micro::text AS balance_micro, created_at";

/** An active key found by its hash, with its account's balance (the key cache's one lookup). */
export type KeyLookup = { caller: Caller; balanceMicro: bigint; lastUsedAt: Date | null };

/**
 * Gateway accounts and their keys. The keys are the shared API keys (`@app/edge`: 256-bit random
 * secrets shown once, kept as SHA-256 hashes, revocable) in `gateway.api_keys`; a revocation here
 * makes every key cache of this process forget at once.
 */
export class AccountStore {
  private readonly keys: DatabaseApiKeyStore;

  constructor(
    private readonly db: Queryable,
    clock: Clock = systemClock,
  ) {
    this.keys = new DatabaseApiKeyStore(db, {
      table: "gateway.api_keys",
      ownerColumn: "account_id",
      keyPrefix: GATEWAY_KEY_PREFIX,
      clock,
    });
  }

  /** Opens an account with a zero balance (credit it through the ledger). */
  async create(name: string, id = newId("acct")): Promise<GatewayAccount> {
    const [row] = await this.db.query<AccountRow>(
      `INSERT INTO gateway.accounts (id, name) VALUES ($1, $2) RETURNING ${ACCOUNT_COLUMNS}`,
      [id, name],
    );
    return toAccount(row as AccountRow);
  }

  async get(id: string): Promise<GatewayAccount | undefined> {
    const [row] = await this.db.query<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM gateway.accounts WHERE id = $1`,
      [id],
    );
    return row ? toAccount(row) : undefined;
  }

  async list(): Promise<GatewayAccount[]> {
    const rows = await this.db.query<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM gateway.accounts ORDER BY created_at, id`,
    );
    return rows.map(toAccount);
  }

  /** Issues a key for an account; the key is returned once and never again. */
  async issueKey(accountId: string, label = ""): Promise<IssuedGatewayKey> {
    const issued = await this.keys.issue({ ownerId: accountId, label });
    return { id: issued.id, accountId, label, key: issued.key };
  }

  /** Revokes a key; false when there is no such active key. Key caches of this process forget at once. */
  async revokeKey(keyId: string, at: Date): Promise<boolean> {
    noteRevocation();
    const revoked = await this.keys.revoke(keyId, at);
    noteRevocation();
    return revoked;
  }

  /** Revokes every active key of an account bearing `label`; how many. Key caches forget at once. */
  async revokeLabelled(accountId: string, label: string, at: Date): Promise<number> {
    noteRevocation();
    const revoked = await this.keys.revokeLabelled(accountId, label, at);
    noteRevocation();
    return revoked;
  }

  async listKeys(accountId: string): Promise<KeyRecord[]> {
    return (await this.keys.list(accountId)).map(({ ownerId, scopes: _scopes, label, ...record }) => ({
      ...record,
      accountId: ownerId,
      label: label ?? "",
    }));
  }

  /**
   * The caller of an active key by its hash (with what its policy lets it reach), and its
   * account's balance, in one statement (the shared key store cannot join the balance); the
   * stored hash is compared in constant time.
   */
  async lookupHash(keyHash: string): Promise<KeyLookup | undefined> {
    const [row] = await this.db.query<{
      accountId: string;
      keyId: string;
      keyHash: string;
      lastUsedAt: Date | null;
      balance: string;
      keepRunOutput: boolean;
      allow: string[] | null;
      ratePerMinute: number | null;
    }>(
      `SELECT k.account_id AS "accountId", k.id AS "keyId", k.key_hash AS "keyHash",
         k.last_used_at AS "lastUsedAt", a.balance_micro::text AS balance,
         a.keep_run_output AS "keepRunOutput", p.allow, p.rate_per_minute AS "ratePerMinute"
       FROM gateway.api_keys k JOIN gateway.accounts a ON a.id = k.account_id
         LEFT JOIN gateway.key_policies p ON p.key_id = k.id
       WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [keyHash],
    );
    if (!row || !sameKeyHash(keyHash, row.keyHash)) return undefined;
    return {
      caller: {
        accountId: row.accountId,
        keyId: row.keyId,
        keepRunOutput: row.keepRunOutput,
        access: { allow: row.allow ?? null, ratePerMinute: row.ratePerMinute ?? null },
      },
      balanceMicro: BigInt(row.balance),
      lastUsedAt: row.lastUsedAt,
    };
  }

  /**
   * Whether the account keeps its runs' outputs from now on (within a second on every instance: the
   * setting is read with the key); false when there is no such account.
   */
  async setKeepRunOutput(accountId: string, keep: boolean): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      "UPDATE gateway.accounts SET keep_run_output = $2 WHERE id = $1 RETURNING id",
      [accountId, keep],
    );
    return rows.length === 1;
  }

  /** Marks a key found by {@link lookupHash} used now, at most once a minute. */
  recordKeyUse(found: KeyLookup): void {
    this.keys.recordUse(found.caller.keyId, found.lastUsedAt);
  }
}

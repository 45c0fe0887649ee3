import { type Clock, type Logger, newId, systemClock } from "@app/core";
import type { Queryable } from "@app/db";
import { apiKeyHash, isPlausibleApiKey, issueApiKey, sameKeyHash } from "./api-key.ts";
import type {
  ApiKeyRecord,
  ApiKeyRequest,
  ApiKeyStore,
  IssuedApiKey,
  VerifiedApiKey,
} from "./api-key-store.ts";
import { LAST_USED_RESOLUTION_MS, markUsedInBackground } from "./last-used.ts";

/**
 * A service's keys table. It has the standard columns `id text PRIMARY KEY`, the owner column,
 * `key_hash text NOT NULL UNIQUE`, `prefix text NOT NULL`, `label text`, `scopes text[] NOT NULL`,
 * `created_at timestamptz NOT NULL DEFAULT now()`, `last_used_at timestamptz`, `revoked_at timestamptz`.
 */
export type ApiKeyTable = {
  /** The table, schema-qualified: `publisher.api_keys`. */
  table: string;
  /** Its owner column: `account_id`, `shop_id`. */
  ownerColumn: string;
  /** The prefix of the keys it issues, so a leaked one is recognisable: `pk`, `shk`, `gwk`. */
  keyPrefix: string;
  clock?: Clock;
  /** Where a failed last-use mark is reported (it never fails the request). */
  logger?: Pick<Logger, "warn">;
};

const QUALIFIED_TABLE = /^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$/;
const COLUMN = /^[a-z_][a-z0-9_]*$/;
const KEY_PREFIX = /^[a-z][a-z0-9]{0,15}$/;

function checkedTable(options: ApiKeyTable): Required<ApiKeyTable> {
  if (!QUALIFIED_TABLE.test(options.table)) {
    throw new RangeError(
      `A keys table is a lower-case schema.table, such as "shop.shop_keys": ${options.table}`,
    );
  }
  if (!COLUMN.test(options.ownerColumn)) {
    throw new RangeError(
      `An owner column is a lower-case name, such as "account_id": ${options.ownerColumn}`,
    );
  }
  if (!KEY_PREFIX.test(options.keyPrefix)) {
    throw new RangeError(
      `A key prefix is a few lower-case letters or digits, such as "gwk": ${options.keyPrefix}`,
    );
  }
  return { ...options, clock: options.clock ?? systemClock, logger: options.logger ?? SILENT };
}

const SILENT: Pick<Logger, "warn"> = { warn: () => undefined };

type VerifyRow<S extends string> = {
  keyId: string;
  ownerId: string;
  keyHash: string;
  scopes: S[];
  lastUsedAt: Date | null;
};

/** The keys of one service's table: see {@link ApiKeyStore}. Identifiers are checked when it is made. */
export class DatabaseApiKeyStore<S extends string = string> implements ApiKeyStore<S> {
  private readonly clock: Clock;
  private readonly keyPrefix: string;
  private readonly table: string;
  private readonly logger: Pick<Logger, "warn">;
  private readonly sql: {
    insert: string;
    insertLabelled: string;
    verify: string;
    touch: string;
    revoke: string;
    revokeLabelled: string;
    list: string;
  };

  constructor(
    private readonly db: Queryable,
    options: ApiKeyTable,
  ) {
    const { table, ownerColumn: owner, keyPrefix, clock, logger } = checkedTable(options);
    this.clock = clock;
    this.keyPrefix = keyPrefix;
    this.table = table;
    this.logger = logger;
    this.sql = {
      insert: `INSERT INTO ${table} (id, ${owner}, key_hash, prefix, scopes) VALUES ($1, $2, $3, $4, $5) RETURNING label`,
      insertLabelled: `INSERT INTO ${table} (id, ${owner}, key_hash, prefix, scopes, label) VALUES ($1, $2, $3, $4, $5, $6) RETURNING label`,
      verify: `SELECT id AS "keyId", ${owner} AS "ownerId", key_hash AS "keyHash", scopes, last_used_at AS "lastUsedAt"
        FROM ${table} WHERE key_hash = $1 AND revoked_at IS NULL`,
      touch: `UPDATE ${table} SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)`,
      revoke: `UPDATE ${table} SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id`,
      revokeLabelled: `UPDATE ${table} SET revoked_at = $3 WHERE ${owner} = $1 AND label = $2 AND revoked_at IS NULL RETURNING id`,
      list: `SELECT id, ${owner} AS "ownerId", prefix, label, scopes, created_at AS "createdAt",
        last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"
        FROM ${table} WHERE ${owner} = $1 ORDER BY created_at, id`,
    };
  }

  async issue(request: ApiKeyRequest<S>): Promise<IssuedApiKey<S>> {
    const { key, hash, shownPrefix } = issueApiKey(this.keyPrefix);
    const id = newId("key");
    const scopes = [...(request.scopes ?? [])];
    const params = [id, request.ownerId, hash, shownPrefix, scopes];
    const [row] = await this.db.query<{ label: string | null }>(
      request.label === undefined ? this.sql.insert : this.sql.insertLabelled,
      request.label === undefined ? params : [...params, request.label],
    );
    return { id, ownerId: request.ownerId, key, prefix: shownPrefix, label: row?.label ?? null, scopes };
  }

  async verify(key: string): Promise<VerifiedApiKey<S> | undefined> {
    if (!isPlausibleApiKey(key)) return undefined;
    const hash = apiKeyHash(key);
    const [row] = await this.db.query<VerifyRow<S>>(this.sql.verify, [hash]);
    if (!row || !sameKeyHash(hash, row.keyHash)) return undefined;
    this.recordUse(row.keyId, row.lastUsedAt);
    return { keyId: row.keyId, ownerId: row.ownerId, scopes: row.scopes };
  }

  /**
   * Marks a key used now if its mark as last read (`lastUsedAt`) is a minute old or missing, in the
   * background (`markUsedInBackground`): one write a minute for a key in constant use, and a failed
   * write logged, never a refused request. For a service that looks its keys up itself (the
   * gateway's cached lookup, which joins the balance).
   */
  recordUse(keyId: string, lastUsedAt: Date | null): void {
    const now = this.clock.now();
    // Conditional, so instances marking one key together write it once.
    const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
    markUsedInBackground({
      key: `${this.table}:${keyId}`,
      lastUsedAt,
      now,
      write: () => this.db.query(this.sql.touch, [keyId, now, staleBefore]),
      onError: (error) => this.logger.warn({ err: error, keyId }, "a key's last use could not be recorded"),
    });
  }

  async revoke(keyId: string, at: Date): Promise<boolean> {
    return (await this.db.query(this.sql.revoke, [keyId, at])).length > 0;
  }

  async revokeLabelled(ownerId: string, label: string, at: Date): Promise<number> {
    return (await this.db.query(this.sql.revokeLabelled, [ownerId, label, at])).length;
  }

  async list(ownerId: string): Promise<ApiKeyRecord<S>[]> {
    return this.db.query<ApiKeyRecord<S>>(this.sql.list, [ownerId]);
  }
}

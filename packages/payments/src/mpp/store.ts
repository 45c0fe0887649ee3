/**
 * An mppx `Store.AtomicStore` on the platform `Database` (PGlite or PostgreSQL, same SQL), shared by
 * every server process: channel state, spent counters and replay markers survive restarts and are
 * linearizable per key across processes.
 *
 * @module
 */
import type { TextSealer } from "@app/core";
import type { Database, Queryable } from "@app/db";
import { Store } from "mppx/server";
import { Json } from "ox";

/** Options for {@link createDbStore}. */
export interface DbStoreOptions {
  db: Database;
  /**
   * The table, optionally schema-qualified (`"fortune.mpp_store"`). It must exist with the columns of
   * {@link mppStoreTableSql}; the owning service migrates it.
   */
  table: string;
  /** Attempts of one `update` when a concurrent insert of the same new key wins (default 20). */
  maxAttempts?: number;
  /**
   * Seals every stored value (bound to its key). Channel state holds the payer's
   * vouchers, which are payment signatures: never at rest in clear.
   */
  sealer?: TextSealer;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** Quotes a `schema.table` or `table` name after checking it is a plain lowercase identifier. */
function qualifiedName(table: string): string {
  const parts = table.split(".");
  if (parts.length > 2 || !parts.every((p) => IDENTIFIER.test(p))) {
    throw new Error(`invalid table name ${JSON.stringify(table)} (expected [schema.]table in lowercase)`);
  }
  return parts.map((p) => `"${p}"`).join(".");
}

/**
 * The DDL of the store table, for the owning service's migration (and for tests).
 * `value` is ox `Json.stringify` text (channel state holds bigints), sealed when a sealer is given.
 */
export function mppStoreTableSql(table: string): string {
  return `CREATE TABLE IF NOT EXISTS ${qualifiedName(table)} (
  key text PRIMARY KEY,
  value text NOT NULL,
  expires_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);`;
}

/**
 * When a stored value stops mattering: mppx's replay markers (`{expires, type: "mppx:replay"}`)
 * carry their own expiry; channel state and the rest never expire. Kept in its own column,
 * since the value itself is sealed, so expired rows can be purged with one indexed delete.
 */
export function expiryOf(value: unknown): Date | null {
  if (typeof value !== "object" || value === null) return null;
  const { expires, type } = value as { expires?: unknown; type?: unknown };
  return type === "mppx:replay" && typeof expires === "number" ? new Date(expires) : null;
}

/** Deletes the rows of a store table whose values expired before `now`; how many went. */
export async function purgeExpiredEntries(db: Queryable, table: string, now: Date): Promise<number> {
  const rows = await db.query(`DELETE FROM ${qualifiedName(table)} WHERE expires_at < $1 RETURNING 1`, [now]);
  return rows.length;
}

/** Thrown inside a transaction when a concurrent transaction inserted the same new key first. */
class LostInsertRace extends Error {}

/**
 * Creates the store. `update(key, fn)` runs `SELECT … FOR UPDATE` and the write in one transaction,
 * so concurrent updates of a key (from any process) are serialised; `fn` is retried when a
 * concurrent insert of a missing key wins, as mppx's contract allows (`fn` is synchronous and
 * side-effect free). `tryClaim` uses mppx's `update`-based fallback.
 */
export function createDbStore(options: DbStoreOptions): Store.AtomicStore {
  const { db } = options;
  const table = qualifiedName(options.table);
  const maxAttempts = options.maxAttempts ?? 20;
  const encode = (key: string, value: unknown): string => {
    const text = Json.stringify(value);
    return options.sealer ? options.sealer.seal(text, key) : text;
  };
  const decode = (key: string, stored: string): unknown =>
    Json.parse(options.sealer ? options.sealer.open(stored, key) : stored);

  const upsert = (q: Queryable, key: string, value: unknown): Promise<unknown> =>
    q.query(
      `INSERT INTO ${table} (key, value, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at, updated_at = now()`,
      [key, encode(key, value), expiryOf(value)],
    );

  const updateOnce = <R>(key: string, fn: (current: unknown) => Store.Change<unknown, R>): Promise<R> =>
    db.transaction(async (tx) => {
      const rows = await tx.query<{ value: string }>(`SELECT value FROM ${table} WHERE key = $1 FOR UPDATE`, [
        key,
      ]);
      const row = rows[0];
      const change = fn(row ? decode(key, row.value) : null);
      if (change.op === "set") {
        const value = encode(key, change.value);
        const expiresAt = expiryOf(change.value);
        if (row) {
          await tx.query(
            `UPDATE ${table} SET value = $2, expires_at = $3, updated_at = now() WHERE key = $1`,
            [key, value, expiresAt],
          );
        } else {
          const inserted = await tx.query(
            `INSERT INTO ${table} (key, value, expires_at) VALUES ($1, $2, $3)
             ON CONFLICT (key) DO NOTHING RETURNING key`,
            [key, value, expiresAt],
          );
          if (inserted.length === 0) throw new LostInsertRace();
        }
      } else if (change.op === "delete" && row) {
        await tx.query(`DELETE FROM ${table} WHERE key = $1`, [key]);
      }
      return change.result;
    });

  return Store.from({
    async get(key: string) {
      const rows = await db.query<{ value: string }>(`SELECT value FROM ${table} WHERE key = $1`, [key]);
      return rows[0] ? decode(key, rows[0].value) : null;
    },
    async put(key: string, value: unknown) {
      await upsert(db, key, value);
    },
    async delete(key: string) {
      await db.query(`DELETE FROM ${table} WHERE key = $1`, [key]);
    },
    async update<R>(key: string, fn: (current: unknown) => Store.Change<unknown, R>): Promise<R> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await updateOnce(key, fn);
        } catch (error) {
          if (!(error instanceof LostInsertRace) || attempt >= maxAttempts) throw error;
        }
      }
    },
  });
}

import pg from "pg";
import {
  type Database,
  parseInt8,
  parseNumeric,
  type Queryable,
  type QueryOptions,
  TYPE_IDS,
} from "./database.ts";

const typeParsers = {
  getTypeParser(id: number, format?: string) {
    if (id === TYPE_IDS.int8) return parseInt8;
    if (id === TYPE_IDS.numeric) return parseNumeric;
    return pg.types.getTypeParser(id, format as "text");
  },
} as pg.CustomTypesConfig;

/**
 * How often each prepared name was renewed. A named statement is prepared again under a new name
 * (`<name>__<n>`) when the one on the connection can no longer be used: PostgreSQL refuses it after
 * another instance's migration changed the types of its result columns, and node-postgres closes
 * it on the server (while still counting it as prepared) when a value could not be serialised.
 */
const renewals = new Map<string, number>();

/** Short, lower-case, without `__` (kept for renewals): PostgreSQL keeps 63 bytes of a name. */
const PREPARED_NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const MAX_PREPARED_NAME = 40;

class InvalidPreparedName extends Error {}

function preparedName(name: string): string {
  if (!PREPARED_NAME.test(name) || name.length > MAX_PREPARED_NAME) {
    throw new InvalidPreparedName(
      `prepareAs must be lower_snake_case of at most ${MAX_PREPARED_NAME} characters: ${name}`,
    );
  }
  const renewed = renewals.get(name) ?? 0;
  return renewed === 0 ? name : `${name}__${renewed}`;
}

/**
 * Whether PostgreSQL refused a named statement that is no longer usable on its connection (a result
 * retyped by a migration, or a name the server no longer has). The statement is then renewed, so a
 * transaction that failed this way can simply be run again.
 */
export function isStalePreparedStatement(error: unknown): boolean {
  if (!(error instanceof pg.DatabaseError)) return false;
  return (
    error.code === "26000" ||
    (error.code === "0A000" && /cached plan must not change result type/.test(error.message))
  );
}

function runner(
  client: pg.Pool | pg.PoolClient,
  inTransaction: boolean,
  namedStatements: boolean,
): Queryable {
  const prepared = (name: string, sql: string, params: readonly unknown[] | undefined) =>
    client.query({ name, text: sql, values: (params ?? []) as unknown[] });
  return {
    async query<Row>(sql: string, params?: readonly unknown[], options?: QueryOptions) {
      const name = namedStatements ? options?.prepareAs : undefined;
      if (!name) return (await client.query(sql, params as unknown[])).rows as Row[];
      try {
        return (await prepared(preparedName(name), sql, params)).rows as Row[];
      } catch (error) {
        if (error instanceof InvalidPreparedName) throw error;
        const unanswered = !(error instanceof pg.DatabaseError);
        if (!unanswered && !isStalePreparedStatement(error)) throw error;
        renewals.set(name, (renewals.get(name) ?? 0) + 1);
        // A value that failed to serialise fails again; an aborted transaction takes no retry: its
        // caller runs it again (isStalePreparedStatement), and the new name is prepared afresh.
        if (unanswered || inTransaction) throw error;
        return (await prepared(preparedName(name), sql, params)).rows as Row[];
      }
    },
    exec: async (sql: string) => {
      await client.query(sql);
    },
  };
}

export type PostgresOptions = {
  maxConnections?: number;
  /** How long to wait for a connection to open (ms; default: no limit). */
  connectTimeoutMs?: number;
  /**
   * Whether `prepareAs` names statements (default true). Off for an embedded database served by
   * its owner: its connections share one session, where one connection's name would collide with
   * another's.
   */
  namedStatements?: boolean;
};

/** Opens a PostgreSQL pool for a `postgres://` URL. */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 0,
    types: typeParsers,
  });
  pool.on("error", () => {
    // An idle client lost its connection; the pool replaces it on the next query.
  });
  const named = options.namedStatements ?? true;
  const base = runner(pool, false, named);
  return {
    kind: "postgres",
    ...base,
    async transaction(work) {
      const client = await pool.connect();
      // A connection the server ends mid-transaction (an administrator, the embedded owner's idle
      // timeout) emits 'error' on the checked-out client: the transaction fails, the process lives.
      const lost = () => undefined;
      client.on("error", lost);
      try {
        await client.query("BEGIN");
        const result = await work(runner(client, true, named));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.off("error", lost);
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

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
 * How often each prepared name was renewed: a statement prepared before another instance's
 * migration changed the types of its result columns is refused by PostgreSQL from then on
 * ("cached plan must not change result type"), so it is prepared again under a new name.
 */
const renewals = new Map<string, number>();

const preparedName = (name: string) => {
  const renewed = renewals.get(name) ?? 0;
  return renewed === 0 ? name : `${name}_${renewed}`;
};

const isStalePlan = (error: unknown) =>
  (error as { code?: string }).code === "0A000" &&
  /cached plan must not change result type/.test((error as Error).message);

function runner(client: pg.Pool | pg.PoolClient, inTransaction: boolean): Queryable {
  const prepared = (name: string, sql: string, params: readonly unknown[] | undefined) =>
    client.query({ name: preparedName(name), text: sql, values: (params ?? []) as unknown[] });
  return {
    async query<Row>(sql: string, params?: readonly unknown[], options?: QueryOptions) {
      const name = options?.prepareAs;
      if (!name) return (await client.query(sql, params as unknown[])).rows as Row[];
      try {
        return (await prepared(name, sql, params)).rows as Row[];
      } catch (error) {
        if (!isStalePlan(error)) throw error;
        renewals.set(name, (renewals.get(name) ?? 0) + 1);
        // The error aborted the transaction: its caller's retry prepares the statement afresh.
        if (inTransaction) throw error;
        return (await prepared(name, sql, params)).rows as Row[];
      }
    },
    exec: async (sql: string) => {
      await client.query(sql);
    },
  };
}

/** Opens a PostgreSQL pool for a `postgres://` URL. */
export async function openPostgres(
  url: string,
  options: { maxConnections?: number } = {},
): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: options.maxConnections ?? 10, types: typeParsers });
  pool.on("error", () => {
    // An idle client lost its connection; the pool replaces it on the next query.
  });
  const base = runner(pool, false);
  return {
    kind: "postgres",
    ...base,
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await work(runner(client, true));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

import pg from "pg";
import { type Database, parseInt8, parseNumeric, type Queryable, TYPE_IDS } from "./database.ts";

const typeParsers = {
  getTypeParser(id: number, format?: string) {
    if (id === TYPE_IDS.int8) return parseInt8;
    if (id === TYPE_IDS.numeric) return parseNumeric;
    return pg.types.getTypeParser(id, format as "text");
  },
} as pg.CustomTypesConfig;

function runner(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    query: async <Row>(sql: string, params?: readonly unknown[]) =>
      (await client.query(sql, params as unknown[])).rows as Row[],
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
  const base = runner(pool);
  return {
    kind: "postgres",
    ...base,
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await work(runner(client));
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

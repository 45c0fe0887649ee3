import { createHash } from "node:crypto";
import pg from "pg";
import { type Database, parseInt8, parseNumeric, type Queryable, TYPE_IDS } from "./database.ts";

const typeParsers = {
  getTypeParser(id: number, format?: string) {
    if (id === TYPE_IDS.int8) return parseInt8;
    if (id === TYPE_IDS.numeric) return parseNumeric;
    return pg.types.getTypeParser(id, format as "text");
  },
} as pg.CustomTypesConfig;

/**
 * The names parameterised statements are prepared under, the same for the same text: PostgreSQL
 * parses and plans each once per connection and then only binds and runs it. The SQL texts are
 * the code's own (values are always parameters), so the names are as few as the statements.
 */
const statementNames = new Map<string, { name: string; generation: number }>();

function statementName(sql: string): string {
  let entry = statementNames.get(sql);
  if (entry === undefined) {
    entry = { name: `q_${createHash("sha256").update(sql).digest("base64url").slice(0, 24)}`, generation: 0 };
    statementNames.set(sql, entry);
  }
  return entry.generation === 0 ? entry.name : `${entry.name}_${entry.generation}`;
}

/**
 * A new name for `sql`, so that every connection prepares it afresh: a statement prepared before
 * a migration changed the types of its result columns is refused by PostgreSQL from then on.
 */
function renewStatementName(sql: string): void {
  const entry = statementNames.get(sql);
  if (entry) entry.generation += 1;
}

/** PostgreSQL's refusal of a prepared statement whose result columns changed since it was planned. */
const isStalePlan = (error: unknown) =>
  (error as { code?: string }).code === "0A000" &&
  /cached plan must not change result type/.test((error as Error).message);

function runner(client: pg.Pool | pg.PoolClient, inTransaction: boolean): Queryable {
  const prepared = (sql: string, params: readonly unknown[]) =>
    client.query({ name: statementName(sql), text: sql, values: params as unknown[] });
  return {
    async query<Row>(sql: string, params?: readonly unknown[]) {
      if (!params || params.length === 0) return (await client.query(sql)).rows as Row[];
      try {
        return (await prepared(sql, params)).rows as Row[];
      } catch (error) {
        if (!isStalePlan(error)) throw error;
        renewStatementName(sql);
        // A transaction is aborted by the error: its caller's retry prepares the statement afresh.
        if (inTransaction) throw error;
        return (await prepared(sql, params)).rows as Row[];
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

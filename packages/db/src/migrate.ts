import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Database } from "./database.ts";

/** One forward-only migration: a SQL script run in the service's own schema. */
export type Migration = { id: string; sql: string };

export type MigrationSet = { schema: string; migrations: Migration[] };

const SCHEMA_NAME = /^[a-z][a-z0-9_]*$/;

/** Reads `NNN_name.sql` files from a folder, in name order (none when the folder does not exist). */
export async function loadMigrations(dir: string | URL): Promise<Migration[]> {
  const path = typeof dir === "string" ? dir : fileURLToPath(dir);
  const names = await readdir(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  const files = names.filter((name) => name.endsWith(".sql")).sort();
  return Promise.all(
    files.map(async (name) => ({
      id: name.replace(/\.sql$/, ""),
      sql: await readFile(join(path, name), "utf8"),
    })),
  );
}

function checksum(sql: string): string {
  return createHash("sha256").update(sql).digest("hex");
}

/**
 * Applies the migrations of one schema that are not applied yet, each exactly once
 * even when several instances start together (a transaction-scoped advisory lock
 * serialises them). A migration whose text changed after it was applied is refused.
 * Returns the ids applied by this call.
 */
export async function migrate(db: Database, set: MigrationSet): Promise<string[]> {
  if (!SCHEMA_NAME.test(set.schema)) throw new Error(`Invalid schema name: ${set.schema}`);
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('platform.migrations'))");
    await tx.exec(`
      CREATE SCHEMA IF NOT EXISTS platform;
      CREATE TABLE IF NOT EXISTS platform.migrations (
        schema_name text NOT NULL,
        id text NOT NULL,
        checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (schema_name, id)
      );
      CREATE SCHEMA IF NOT EXISTS ${set.schema};
    `);
    const rows = await tx.query<{ id: string; checksum: string }>(
      "SELECT id, checksum FROM platform.migrations WHERE schema_name = $1",
      [set.schema],
    );
    const applied = new Map(rows.map((row) => [row.id, row.checksum]));
    const done: string[] = [];
    for (const migration of set.migrations) {
      const sum = checksum(migration.sql);
      const previous = applied.get(migration.id);
      if (previous !== undefined) {
        if (previous !== sum) {
          throw new Error(`Migration ${set.schema}/${migration.id} changed after it was applied.`);
        }
        continue;
      }
      await tx.exec(`SET LOCAL search_path TO ${set.schema}, public;\n${migration.sql}`);
      await tx.query("INSERT INTO platform.migrations (schema_name, id, checksum) VALUES ($1, $2, $3)", [
        set.schema,
        migration.id,
        sum,
      ]);
      done.push(migration.id);
    }
    await tx.exec("SET LOCAL search_path TO public");
    return done;
  });
}

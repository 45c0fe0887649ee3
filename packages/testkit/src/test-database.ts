import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { type Database, openPGlite, openPostgres, type Queryable } from "@app/db";
import { inject } from "vitest";
import { withDatabase } from "./database-source.ts";

/**
 * A database for one test file, already migrated for every service: PGlite
 * restored from the run's snapshot, or a fresh PostgreSQL database copied from the
 * run's template (dropped again on close).
 */
export async function openTestDatabase(): Promise<Database> {
  const source = inject("testDatabase");
  if (source.kind === "pglite") {
    const snapshot = new Blob([new Uint8Array(await readFile(source.snapshotPath))]);
    return openPGlite({ snapshot });
  }
  const name = `test_${randomBytes(6).toString("hex")}`;
  const admin = await openPostgres(source.adminUrl, { maxConnections: 1 });
  await admin.exec(`CREATE DATABASE ${name} TEMPLATE ${source.template}`);
  const db = await openPostgres(withDatabase(source.adminUrl, name));
  return {
    ...db,
    async close() {
      await db.close();
      await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}

/** The kind of database this run tests against. */
export function testDatabaseKind(): "pglite" | "postgres" {
  return inject("testDatabase").kind;
}

/**
 * Another handle on the test file's PostgreSQL database, with a pool of its own (another instance
 * of a service, or one connection a test means to reuse). PostgreSQL runs only; close it after use.
 */
export async function openSecondHandle(
  db: Queryable,
  options: { maxConnections?: number } = {},
): Promise<Database> {
  const source = inject("testDatabase");
  if (source.kind !== "postgres") throw new Error("A second handle needs the PostgreSQL test database.");
  const [row] = await db.query<{ name: string }>("SELECT current_database() AS name");
  return openPostgres(withDatabase(source.adminUrl, row?.name ?? ""), options);
}

import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRawPGlite, fromPGlite, migrate, openPostgres } from "@app/db";
import type { TestProject } from "vitest/node";
import { type TestDatabaseSource, withDatabase } from "./database-source.ts";
import { allMigrationSets } from "./migration-sets.ts";

/**
 * Runs once per test run: migrates every service's schema into one database and
 * hands the test files a way to start from it. PGlite by default (a snapshot file);
 * PostgreSQL when `TEST_DATABASE_URL` is set (a template database).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const sets = await allMigrationSets();
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    const template = `platform_template_${randomBytes(4).toString("hex")}`;
    const admin = await openPostgres(adminUrl, { maxConnections: 1 });
    await admin.exec(`CREATE DATABASE ${template}`);
    const db = await openPostgres(withDatabase(adminUrl, template), { maxConnections: 1 });
    for (const set of sets) await migrate(db, set);
    await db.close();
    project.provide("testDatabase", { kind: "postgres", adminUrl, template } satisfies TestDatabaseSource);
    return async () => {
      await admin.exec(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
      await admin.close();
    };
  }
  const pg = await createRawPGlite();
  const db = fromPGlite(pg);
  for (const set of sets) await migrate(db, set);
  const dump = await pg.dumpDataDir("none");
  await db.close();
  const dir = await mkdtemp(join(tmpdir(), "platform-test-"));
  const snapshotPath = join(dir, "snapshot.tar");
  await writeFile(snapshotPath, new Uint8Array(await dump.arrayBuffer()));
  project.provide("testDatabase", { kind: "pglite", snapshotPath } satisfies TestDatabaseSource);
  return () => rm(dir, { recursive: true, force: true });
}

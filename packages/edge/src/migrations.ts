import { loadMigrations, type MigrationSet } from "@app/db";

/** The schema of the shared mechanisms' tables (rate-limit windows and buckets, idempotency records). */
export const EDGE_SCHEMA = "edge";

/**
 * The migrations of the `edge` schema. Every service applies them before its own (the runtime's
 * `migrateService`), so the tables exist whichever service starts first; rows are namespaced by
 * the service that writes them.
 */
export async function edgeMigrationSet(): Promise<MigrationSet> {
  return {
    schema: EDGE_SCHEMA,
    migrations: await loadMigrations(new URL("../migrations/", import.meta.url)),
  };
}

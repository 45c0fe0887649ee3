export type { Database, Queryable, QueryOptions } from "./database.ts";
export {
  type EmbeddedRole,
  embeddedOwner,
  embeddedPaths,
  openEmbedded,
} from "./embedded/open-embedded.ts";
export { DataFolderInUseError, type OwnerRecord } from "./embedded/owner-lock.ts";
export { SESSION_IDLE_TIMEOUT_MS, serveOverWire, type WireServer } from "./embedded/wire-server.ts";
export { loadMigrations, type Migration, type MigrationSet, migrate } from "./migrate.ts";
export { type DatabaseConfig, embeddedFolder, type OpenOptions, openDatabase, pingDatabase } from "./open.ts";
export { createRawPGlite, fromPGlite, openPGlite, openPGliteInstance } from "./pglite.ts";
export { isStalePreparedStatement, openPostgres, type PostgresOptions } from "./postgres.ts";

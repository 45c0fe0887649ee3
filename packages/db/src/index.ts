export type { Database, Queryable, QueryOptions } from "./database.ts";
export { loadMigrations, type Migration, type MigrationSet, migrate } from "./migrate.ts";
export { type DatabaseConfig, openDatabase, pingDatabase } from "./open.ts";
export { createRawPGlite, fromPGlite, openPGlite } from "./pglite.ts";
export { isStalePreparedStatement, openPostgres } from "./postgres.ts";

import { join } from "node:path";
import type { Database } from "./database.ts";
import { openPGlite } from "./pglite.ts";
import { openPostgres } from "./postgres.ts";

export type DatabaseConfig = {
  /** `postgres://…` for PostgreSQL; unset for embedded PGlite. */
  url?: string;
  /** Where PGlite keeps its files (`<dataDir>/pglite`). */
  dataDir: string;
};

/** Opens the configured database: PostgreSQL when a URL is set, PGlite on disk otherwise. */
export function openDatabase(config: DatabaseConfig): Promise<Database> {
  if (config.url) return openPostgres(config.url);
  return openPGlite({ dataDir: join(config.dataDir, "pglite") });
}

/** Throws unless the database answers a trivial query. */
export async function pingDatabase(db: Database): Promise<void> {
  await db.query("SELECT 1");
}

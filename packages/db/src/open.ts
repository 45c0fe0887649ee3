import { join } from "node:path";
import type { Database } from "./database.ts";
import { type EmbeddedRole, openEmbedded } from "./embedded/open-embedded.ts";
import { openPostgres } from "./postgres.ts";

export type DatabaseConfig = {
  /** `postgres://…` for PostgreSQL; unset for embedded PGlite. */
  url?: string;
  /** Where PGlite keeps its files (`<dataDir>/pglite`). */
  dataDir: string;
};

export type OpenOptions = {
  /**
   * Embedded only. `owner`: this process opens the PGlite folder (refused while another process
   * holds it) and serves it to others. `client` (the default): through the running owner, or
   * alone while none runs.
   */
  role?: EmbeddedRole;
  /** Names this process in the refusal another one gets ("npm start", "npm run publisher"). */
  holder?: string;
};

/** The PGlite folder under a data directory. */
export function embeddedFolder(dataDir: string): string {
  return join(dataDir, "pglite");
}

/**
 * Opens the configured database: PostgreSQL when a URL is set, else the embedded PGlite folder
 * under `dataDir`, through its one owner.
 */
export function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): Promise<Database> {
  if (config.url) return openPostgres(config.url);
  return openEmbedded(embeddedFolder(config.dataDir), {
    role: options.role ?? "client",
    holder: options.holder ?? defaultHolder(),
  });
}

/** The command line of this process, shortened: what another process is told holds the folder. */
function defaultHolder(): string {
  const script = process.argv[1]?.split(/[\\/]/).slice(-3).join("/") ?? "node";
  return [script, ...process.argv.slice(2, 4)].join(" ");
}

/** Throws unless the database answers a trivial query. */
export async function pingDatabase(db: Database): Promise<void> {
  await db.query("SELECT 1");
}

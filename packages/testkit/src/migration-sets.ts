import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadMigrations, type MigrationSet } from "@app/db";

const SERVICES_DIR = fileURLToPath(new URL("../../../services/", import.meta.url));

/** Every service's migrations (schema = the service's folder name), as the services apply them at start. */
export async function allMigrationSets(): Promise<MigrationSet[]> {
  const sets: MigrationSet[] = [];
  for (const name of (await readdir(SERVICES_DIR)).sort()) {
    const dir = join(SERVICES_DIR, name, "migrations");
    const exists = await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (exists) sets.push({ schema: name, migrations: await loadMigrations(dir) });
  }
  return sets;
}

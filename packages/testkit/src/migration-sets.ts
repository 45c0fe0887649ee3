import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadMigrations, type MigrationSet } from "@app/db";
import { edgeMigrationSet } from "@app/edge";

const SERVICES_DIR = fileURLToPath(new URL("../../../services/", import.meta.url));

const isFile = (path: string) =>
  stat(path).then(
    (s) => s.isFile(),
    () => false,
  );

/**
 * Every service's migrations, as the services apply them at start: the shared `edge` set first,
 * then one set per service folder (schema = the folder's name), empty when it has none yet.
 */
export async function allMigrationSets(): Promise<MigrationSet[]> {
  const sets: MigrationSet[] = [await edgeMigrationSet()];
  for (const name of (await readdir(SERVICES_DIR)).sort()) {
    if (!(await isFile(join(SERVICES_DIR, name, "package.json")))) continue;
    sets.push({ schema: name, migrations: await loadMigrations(join(SERVICES_DIR, name, "migrations")) });
  }
  return sets;
}

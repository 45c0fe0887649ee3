import { mkdir } from "node:fs/promises";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { type Database, parseInt8, parseNumeric, type Queryable, TYPE_IDS } from "./database.ts";

const parsers = { [TYPE_IDS.int8]: parseInt8, [TYPE_IDS.numeric]: parseNumeric };

function wrapTransaction(tx: Transaction): Queryable {
  return {
    query: async <Row>(sql: string, params?: readonly unknown[]) =>
      (await tx.query<Row>(sql, params as unknown[])).rows,
    exec: async (sql: string) => {
      await tx.exec(sql);
    },
  };
}

/** Wraps an open PGlite instance as a {@link Database}. */
export function fromPGlite(pg: PGlite): Database {
  return {
    kind: "pglite",
    query: async <Row>(sql: string, params?: readonly unknown[]) =>
      (await pg.query<Row>(sql, params as unknown[])).rows,
    exec: async (sql: string) => {
      await pg.exec(sql);
    },
    transaction: (work) => pg.transaction((tx) => work(wrapTransaction(tx))),
    close: () => pg.close(),
  };
}

/**
 * Opens embedded PostgreSQL (PGlite) in memory. `snapshot` starts from a dump made by
 * `dumpDataDir` (tests start from a migrated snapshot). On disk: `openDatabase`.
 */
export async function openPGlite(options: { snapshot?: Blob } = {}): Promise<Database> {
  return fromPGlite(await openPGliteInstance(options));
}

/**
 * Opens a raw PGlite instance. A `dataDir` on disk must have one owner: open it only through
 * `openEmbedded` (or `openDatabase`), which hold the folder's lock.
 */
export async function openPGliteInstance(
  options: { dataDir?: string; snapshot?: Blob } = {},
): Promise<PGlite> {
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  return PGlite.create({ dataDir: options.dataDir, loadDataDir: options.snapshot, parsers });
}

/** Opens a fresh in-memory PGlite and returns the raw instance (for making snapshots). */
export function createRawPGlite(): Promise<PGlite> {
  return PGlite.create({ parsers });
}

import type { PGlite } from "@electric-sql/pglite";
import type { Database } from "../database.ts";
import { fromPGlite, openPGliteInstance } from "../pglite.ts";
import { openPostgres } from "../postgres.ts";
import {
  acquireOwnerLock,
  DataFolderInUseError,
  type OwnerLock,
  type OwnerRecord,
  readOwner,
} from "./owner-lock.ts";
import { serveOverWire } from "./wire-server.ts";

/**
 * How a process reaches an embedded data folder:
 * - `owner`: it opens the folder, refused when another live process holds it, and serves the
 *   database to other processes over the PostgreSQL wire protocol (`npm start`, a service alone);
 * - `client`: it connects through the running owner, as to any PostgreSQL; with none running it
 *   opens the folder itself for its lifetime, serving nobody (the CLIs, an extra worker).
 */
export type EmbeddedRole = "owner" | "client";

export type EmbeddedOptions = {
  role: EmbeddedRole;
  /** Names this process in the refusal another one gets ("npm start", "npm run publisher"). */
  holder: string;
  /** How long a client waits for an owner that is starting, or for a CLI holding the folder (ms). */
  waitMs?: number;
  /** How long a connection may hold the database idle (see {@link SESSION_IDLE_TIMEOUT_MS}). */
  idleTimeoutMs?: number;
};

/** Where the lock and the socket of a PGlite folder live: beside it, under the same data directory. */
export function embeddedPaths(folder: string) {
  return { lock: `${folder}.lock`, socketDir: `${folder}.sock` };
}

/** The process holding a PGlite folder, if a live one does. */
export function embeddedOwner(folder: string): Promise<OwnerRecord | undefined> {
  return readOwner(embeddedPaths(folder).lock);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The owner's database, and where other processes reach it. */
async function openAsOwner(folder: string, lock: OwnerLock, options: EmbeddedOptions): Promise<Database> {
  let pg: PGlite | undefined;
  try {
    pg = await openPGliteInstance({ dataDir: folder });
    const server = await serveOverWire(pg, {
      socketDir: embeddedPaths(folder).socketDir,
      idleTimeoutMs: options.idleTimeoutMs,
    });
    await lock.publish(server.url);
    const db = fromPGlite(pg);
    return {
      ...db,
      endpoint: server.url,
      async close() {
        try {
          await server.close();
          await db.close();
        } finally {
          await lock.release();
        }
      },
    };
  } catch (error) {
    await pg?.close().catch(() => undefined);
    await lock.release();
    throw error;
  }
}

/** A database opened alone on the folder (no owner runs): held under the lock, served to nobody. */
async function openAlone(folder: string, lock: OwnerLock): Promise<Database> {
  try {
    const db = fromPGlite(await openPGliteInstance({ dataDir: folder }));
    return {
      ...db,
      async close() {
        try {
          await db.close();
        } finally {
          await lock.release();
        }
      },
    };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** A pool through the owner's socket, or undefined when the owner stopped answering meanwhile. */
async function connectThrough(endpoint: string): Promise<Database | undefined> {
  const db = await openPostgres(endpoint, {
    maxConnections: 4,
    namedStatements: false,
    connectTimeoutMs: 2_000,
  });
  try {
    await db.query("SELECT 1");
    return db;
  } catch {
    await db.close().catch(() => undefined);
    return undefined;
  }
}

/**
 * Opens the PGlite folder as its one owner, or through it: two processes must never open one
 * PGlite folder each (PGlite is PostgreSQL in one process; two writers corrupt it).
 */
export async function openEmbedded(folder: string, options: EmbeddedOptions): Promise<Database> {
  const { lock: lockPath } = embeddedPaths(folder);
  const lockFor = (serves: boolean) => acquireOwnerLock(lockPath, { holder: options.holder, serves, folder });
  if (options.role === "owner") return openAsOwner(folder, await lockFor(true), options);
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  for (;;) {
    const owner = await readOwner(lockPath);
    if (owner?.endpoint) {
      const db = await connectThrough(owner.endpoint);
      if (db) return db;
    } else if (!owner) {
      const lock = await lockFor(false).catch((error: unknown) => {
        if (error instanceof DataFolderInUseError) return undefined;
        throw error;
      });
      if (lock) return openAlone(folder, lock);
    }
    if (Date.now() > deadline) {
      const holder = await readOwner(lockPath);
      if (holder) throw new DataFolderInUseError(folder, holder);
    }
    await sleep(100);
  }
}

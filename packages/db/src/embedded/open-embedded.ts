import { join, resolve } from "node:path";
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
  socketAnswers,
} from "./owner-lock.ts";
import { SOCKET_FILE, socketUrl } from "./wire-protocol.ts";
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

/** A pool through the owner's socket, or undefined when the owner did not answer in `timeoutMs`. */
async function connectThrough(endpoint: string, timeoutMs: number): Promise<Database | undefined> {
  const db = await openPostgres(endpoint, {
    maxConnections: 4,
    namedStatements: false,
    connectTimeoutMs: timeoutMs,
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
 * An owner still serving on the folder's usual socket, when its lock file is gone (removed by
 * hand): it must be connected through, never opened beside.
 */
async function ownerWithoutLock(folder: string, holder: string): Promise<OwnerRecord | undefined> {
  const socketDir = resolve(embeddedPaths(folder).socketDir);
  if (!(await socketAnswers(join(socketDir, SOCKET_FILE)))) return undefined;
  const endpoint = socketUrl(socketDir);
  return { pid: 0, holder, since: "unknown", serves: true, endpoint };
}

/**
 * Opens the PGlite folder as its one owner, or through it: two processes must never open one
 * PGlite folder each (PGlite is PostgreSQL in one process; two writers corrupt it).
 */
export async function openEmbedded(folder: string, options: EmbeddedOptions): Promise<Database> {
  const { lock: lockPath } = embeddedPaths(folder);
  const lockFor = (serves: boolean) => acquireOwnerLock(lockPath, { holder: options.holder, serves, folder });
  const unlocked = () => ownerWithoutLock(folder, "a process whose lock file was removed");
  if (options.role === "owner") {
    const lock = await lockFor(true);
    const serving = await unlocked();
    if (serving) {
      await lock.release();
      throw new DataFolderInUseError(folder, serving);
    }
    return openAsOwner(folder, lock, options);
  }
  const waitMs = options.waitMs ?? 10_000;
  const deadline = Date.now() + waitMs;
  for (;;) {
    const owner = (await readOwner(lockPath)) ?? (await unlocked());
    if (owner?.endpoint) {
      const db = await connectThrough(owner.endpoint, Math.max(1_000, deadline - Date.now()));
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
      if (holder?.endpoint) {
        throw new Error(
          `The embedded database in ${folder} is held by ${holder.holder} (pid ${holder.pid}), which did not answer ` +
            `on ${holder.endpoint} within ${waitMs / 1000} s: it may be busy with a long statement. Try again.`,
        );
      }
      if (holder) throw new DataFolderInUseError(folder, holder);
    }
    await sleep(100);
  }
}

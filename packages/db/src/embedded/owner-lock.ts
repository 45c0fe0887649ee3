import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, unlinkSync } from "node:fs";
import { link, mkdir, readFile, rename, rmdir, stat, unlink, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import { SOCKET_FILE } from "./wire-protocol.ts";

/** What the lock file of an embedded data folder says about the process holding it. */
export type OwnerRecord = {
  pid: number;
  /** The process's start time in clock ticks since boot (Linux), to tell a reused pid apart. */
  startTicks?: number;
  /** What holds it, in the words of the refusal another process gets ("npm start", "npm run publisher"). */
  holder: string;
  since: string;
  /** Whether the holder serves the database to other processes (then `endpoint` follows). */
  serves: boolean;
  /** A PostgreSQL URL reaching the holder's database, once it serves it. */
  endpoint?: string;
};

/** Text from a lock file, fit for a terminal: control characters (escapes, newlines) shown as `?`. */
const printable = (text: string) =>
  [...text.slice(0, 200)].map((char) => (isControl(char.charCodeAt(0)) ? "?" : char)).join("");

const isControl = (code: number) => code < 0x20 || (code >= 0x7f && code < 0xa0);

/** The embedded data folder is held by another live process. */
export class DataFolderInUseError extends Error {
  override name = "DataFolderInUseError";
  constructor(
    readonly folder: string,
    readonly owner: OwnerRecord,
  ) {
    const how = owner.endpoint
      ? `Stop it first, or connect through it: ${owner.endpoint} (the CLIs, workers and psql do).`
      : "Stop it first, or wait until it is done.";
    const holder = printable(owner.holder);
    const which = owner.pid > 0 ? ` (pid ${owner.pid}, since ${printable(String(owner.since))})` : "";
    super(
      `The embedded database in ${folder} is in use by ${holder}${which}. ` +
        `PGlite is one process per folder: a second one would corrupt it. ${how}`,
    );
  }
}

/** A lock held on a data folder: released by `release()`, on exit, and recognised as stale once its process is gone. */
export type OwnerLock = {
  readonly path: string;
  /** Records where other processes reach the database. */
  publish(endpoint: string): Promise<void>;
  release(): Promise<void>;
};

/** The start time of a live process (Linux `/proc`), or undefined where it cannot be read. */
function processStartTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22; the command name (field 2) may hold spaces, so count from its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the process is running (a zombie, dead but not yet reaped, is not). */
function processRuns(record: OwnerRecord): boolean {
  if (!Number.isInteger(record.pid) || record.pid <= 0) return false;
  try {
    process.kill(record.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  try {
    const stat = readFileSync(`/proc/${record.pid}/stat`, "utf8");
    if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return false;
  } catch {
    // No /proc here: the signal's answer stands.
  }
  if (record.startTicks === undefined) return true;
  const ticks = processStartTicks(record.pid);
  return ticks === undefined || ticks === record.startTicks;
}

/** The Unix socket a PostgreSQL URL names (`?host=<dir>`), if it names one. */
export function socketPathOf(endpoint: string): string | undefined {
  try {
    const dir = new URL(endpoint).searchParams.get("host");
    return dir?.startsWith("/") ? join(dir, SOCKET_FILE) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether something listens on a Unix socket. A live owner's socket takes a connection even while
 * its process is busy (the kernel queues it); a dead one's refuses it.
 */
export function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ path });
    const done = (answers: boolean) => {
      socket.destroy();
      resolve(answers);
    };
    socket.setTimeout(1_000, () => done(true));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/**
 * Whether the lock's holder is alive. An owner that serves is alive while its socket answers,
 * whatever its pid says: a process in another pid namespace (a container sharing the folder)
 * cannot see the owner's pid, and a reused pid does not keep a dead owner alive. One that does not
 * serve is judged by its pid and start time.
 */
async function isAlive(record: OwnerRecord): Promise<boolean> {
  const socket = record.endpoint ? socketPathOf(record.endpoint) : undefined;
  if (socket) return socketAnswers(socket);
  return processRuns(record);
}

function parseRecord(text: string): OwnerRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<OwnerRecord>;
    if (typeof value.pid !== "number" || typeof value.holder !== "string") return undefined;
    return value as OwnerRecord;
  } catch {
    return undefined;
  }
}

/** The live process holding the lock at `path`, or undefined when nobody (or a dead process) does. */
export async function readOwner(path: string): Promise<OwnerRecord | undefined> {
  const text = await readFile(path, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  const record = parseRecord(text);
  return record && (await isAlive(record)) ? record : undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes `content` to a fresh file beside `path` and returns its name. */
async function stage(path: string, content: string): Promise<string> {
  const staged = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
  await writeFile(staged, content, { mode: 0o600 });
  return staged;
}

/**
 * Replaces a stale lock (its process is gone) under a takeover guard, so that two processes
 * finding the same stale lock cannot both take it. A guard left by a process that died inside
 * this short step is itself stale after a few seconds.
 */
async function takeOverStale(path: string, content: string): Promise<boolean> {
  const guard = `${path}.takeover`;
  try {
    await mkdir(guard);
  } catch {
    const age = await stat(guard).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > 5_000) await rmdir(guard).catch(() => undefined);
    return false;
  }
  try {
    const text = await readFile(path, "utf8").catch(() => undefined);
    const record = text === undefined ? undefined : parseRecord(text);
    if (text !== undefined && record && (await isAlive(record))) return false;
    const staged = await stage(path, content);
    await rename(staged, path);
    return true;
  } finally {
    await rmdir(guard).catch(() => undefined);
  }
}

/**
 * Takes the lock of an embedded data folder for this process, or throws
 * {@link DataFolderInUseError} naming the live process that holds it. A lock left by a process
 * that died (however it ended) is recognised from its pid and start time and taken over.
 */
export async function acquireOwnerLock(
  path: string,
  options: { holder: string; serves: boolean; folder: string },
): Promise<OwnerLock> {
  await mkdir(dirname(path), { recursive: true });
  let record: OwnerRecord = {
    pid: process.pid,
    startTicks: processStartTicks(process.pid),
    holder: options.holder,
    since: new Date().toISOString(),
    serves: options.serves,
  };
  const content = () => `${JSON.stringify(record, null, 2)}\n`;
  for (let attempt = 0; ; attempt++) {
    // link() creates the lock with its whole content at once, or fails when one exists.
    const staged = await stage(path, content());
    const created = await link(staged, path).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === "EEXIST") return false;
        throw error;
      },
    );
    await unlink(staged);
    if (created) break;
    const owner = await readOwner(path);
    if (owner) throw new DataFolderInUseError(options.folder, owner);
    if (await takeOverStale(path, content())) break;
    if (attempt >= 50)
      throw new Error(`Could not take the lock ${path}: another process keeps taking it over.`);
    await sleep(20 + Math.random() * 40);
  }
  let held = true;
  const releaseOnExit = () => {
    if (held && existsSync(path)) unlinkSync(path);
  };
  process.once("exit", releaseOnExit);
  return {
    path,
    async publish(endpoint) {
      record = { ...record, endpoint };
      await rename(await stage(path, content()), path);
    },
    async release() {
      if (!held) return;
      held = false;
      process.removeListener("exit", releaseOnExit);
      await unlink(path).catch(() => undefined);
    },
  };
}

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomFillSync } from "node:crypto";
import { createReadStream, existsSync, readFileSync, statSync } from "node:fs";
import { mkdir, mkdtemp, open, rm, stat } from "node:fs/promises";
import { request } from "node:http";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { type Database, openPGlite, openPostgres, type Queryable } from "@app/db";
import { createConnectionSealer, publisherService } from "@app/publisher";
import { seedDemoPublisher } from "@app/publisher/demo";
import { migrateService } from "@app/runtime";
import { DEMO_BLUESKY } from "@app/sandbox/demo";
import {
  candidateSlots,
  nextFreeSlot,
  QUEUE_HORIZON_DAYS,
} from "../services/publisher/src/domain/queue-slots.ts";
import { newTid } from "../services/publisher/src/platforms/bluesky/tid.ts";
import {
  createAccount,
  queueSettingsOf,
  setQueueSettings,
} from "../services/publisher/src/store/accounts.ts";
import {
  firstFreeSlot,
  lockAccountQueue,
  lockQueueReadSettings,
  takenSlots,
} from "../services/publisher/src/store/posts.ts";
import { type CpuShares, withCpu } from "./cpu.ts";
import { ask, forkServer, stopServer } from "./lib.ts";
import { type FixedResult, percentile, runFixed } from "./loader.ts";
import type { PublisherServerInfo, RssReport } from "./servers/publisher.ts";
import type { PublisherSandboxInfo } from "./servers/publisher-sandbox.ts";

const MiB = 1024 * 1024;
const UPLOAD_MB = Number(process.env.BENCH_UPLOAD_MB ?? 512);
const UPLOAD_ROUNDS = 3;
const TARGETS = Number(process.env.BENCH_TARGETS ?? 10_000);
const FULL_TARGETS = 10_000;
/** The spread of the scheduled targets' due times (one minute; shorter only for quick trials). */
const SPREAD_SECONDS = Number(process.env.BENCH_SPREAD_SECONDS ?? 60);
const WORKERS = 2;
/** The workers' settings: the service's defaults unless set for an exploration. */
const WORKER_CONCURRENCY = Number(process.env.BENCH_WORKER_CONCURRENCY ?? 16);
const WORKER_POLL_MS = Number(process.env.BENCH_WORKER_POLL_MS ?? 1000);
const WORKER_NOTE =
  process.env.BENCH_WORKER_CONCURRENCY || process.env.BENCH_WORKER_POLL_MS
    ? `concurrency ${WORKER_CONCURRENCY}, poll ${WORKER_POLL_MS} ms: set by BENCH_WORKER_*, not the defaults`
    : `concurrency ${WORKER_CONCURRENCY}, poll ${WORKER_POLL_MS} ms: the service's defaults`;
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** Which parts run (`BENCH_PUBLISHER_PARTS=scheduling,queue`, comma-separated): all three by default. */
const PARTS = new Set(
  (process.env.BENCH_PUBLISHER_PARTS ?? "uploads,scheduling,queue")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean),
);
const QUEUE_POSTS = 10_000;
const QUEUE_RUNS = 1000;
const QUEUE_WARM_UP = 100;
const TOKEN_SECRET = "publisher-bench-token-secret-0123456789abcdef";
const WORKER_SCRIPT = fileURLToPath(new URL("../services/publisher/src/worker.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../", import.meta.url));

const TARGET_UPLOAD_RATIO = 0.8;
const TARGET_RSS_MB = 64;
const TARGET_LATENESS_P99_MS = 5000;
const TARGET_QUEUE_P99_MS = 5;

/** The verdicts, printed together at the end of the section. */
const verdicts: string[] = [];
const verdict = (text: string, met: boolean) => verdicts.push(`  ${text}: ${met ? "met" : "NOT met"}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const out = (text: string) => process.stdout.write(`${text}\n`);
const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "—");

/**
 * The publisher service: (1) a large upload through `POST /api/v1/upload` and through a v2
 * presigned PUT against `cp` of the same file on the same disk, with the service's peak RSS
 * growth; (2) scheduled Bluesky posts published by two worker processes on PostgreSQL through the
 * real adapters to the sandbox (lateness, duplicates, and a burst's drain), against the sandbox's
 * own createRecord rate; (3) the queue route's slot lookup for an account with 10,000 scheduled
 * posts against one with none. `BENCH_UPLOAD_MB`, `BENCH_TARGETS`, `BENCH_SPREAD_SECONDS` and
 * `BENCH_PHASE_GRACE_SECONDS` (90) shrink the work for quick runs; `BENCH_WORKER_CONCURRENCY` and
 * `BENCH_WORKER_POLL_MS` try other worker settings than the service's defaults (16, 1000);
 * `BENCH_PUBLISHER_PARTS` (`uploads,scheduling,queue`) runs only some parts.
 */
export async function benchPublisher(): Promise<void> {
  verdicts.length = 0;
  out(
    `\nPublisher service (${UPLOAD_MB} MiB uploads; ${TARGETS} targets over ${SPREAD_SECONDS} s; queue of ${QUEUE_POSTS} posts)`,
  );
  if (PARTS.has("uploads")) await benchUploads();
  const postgres = await reachablePostgres();
  if (postgres) {
    if (PARTS.has("scheduling")) await benchScheduling(postgres);
  } else {
    out(`\n  PostgreSQL not reachable at ${redact(POSTGRES_URL)}: scheduled publishing skipped`);
  }
  if (PARTS.has("queue")) await benchQueueSlots(postgres);
  out("\nPublisher targets");
  out(verdicts.join("\n"));
  if (postgres) await postgres.close();
}

const redact = (url: string) => url.replace(/\/\/[^@/]*@/, "//…@");

// ————————————————————————————————————————————— 1. uploads ——————————————————————————————————————————————

type UploadKind = "cp" | "ceiling" | "bare" | "v1" | "v2";

type UploadRun = { seconds: number; rssGrowth?: number; cpu: CpuShares };

/** The uploader: curl when installed (what a real client would use), else this process over `node:http`. */
const CURL = "/usr/bin/curl";
const UPLOAD_CLIENT: "curl" | "node" = existsSync(CURL) ? "curl" : "node";

async function benchUploads(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "bench-publisher-upload-"));
  const storageDir = join(dir, "media");
  await mkdir(storageDir, { recursive: true });
  let server: ChildProcess | undefined;
  try {
    const size = Math.round(UPLOAD_MB * MiB);
    const file = join(dir, "upload.bin");
    await makeRandomFile(file, size);
    const started = await forkServer<PublisherServerInfo>("./servers/publisher.ts", 120_000, {
      BENCH_STORAGE_DIR: storageDir,
    });
    server = started.child;
    const info = started.message;
    const pid = server.pid;
    const runs: Record<UploadKind, UploadRun[]> = { cp: [], ceiling: [], bare: [], v1: [], v2: [] };
    // A small warm-up of both routes (JIT, the first storage write), not counted; its own file,
    // as curl sends whole files.
    const warmSize = Math.min(size, 4 * MiB);
    const warmFile = join(dir, "warm-up.bin");
    await makeRandomFile(warmFile, warmSize);
    await uploadV1(info, warmFile, warmSize);
    await uploadV2(info, warmFile, warmSize);
    await rm(storageDir, { recursive: true, force: true });
    await mkdir(storageDir, { recursive: true });
    for (let round = 0; round < UPLOAD_ROUNDS; round++) {
      const copy = join(dir, "cp-copy.bin");
      runs.cp.push(await withCpuRun({}, () => timeCp(file, copy)));
      await rm(copy, { force: true });
      // v1 and v2 swap places every other round: whichever runs right after bare does worse.
      const order =
        round % 2 === 0
          ? (["ceiling", "bare", "v1", "v2"] as const)
          : (["ceiling", "bare", "v2", "v1"] as const);
      for (const kind of order) {
        const child = server;
        await ask(child, "rss-start", 10_000);
        const run = await withCpuRun({ server: pid }, () =>
          kind === "ceiling"
            ? uploadBare(info.ceilingUrl, file, size)
            : kind === "bare"
              ? uploadBare(info.bareUrl, file, size)
              : kind === "v1"
                ? uploadV1(info, file, size)
                : uploadV2(info, file, size),
        );
        const rss = await ask<RssReport>(child, "rss-stop", 10_000);
        run.rssGrowth = Math.max(rss.peakBytes, rss.hwmBytes ?? 0) - rss.startBytes;
        runs[kind].push(run);
        await rm(storageDir, { recursive: true, force: true });
        await mkdir(storageDir, { recursive: true });
      }
    }
    printUploads(runs, size);
  } finally {
    if (server) await stopServer(server);
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs one timed step (seconds), with the named processes' CPU, and the client's: this process
 * plus the children it reaped meanwhile (curl, cp).
 */
async function withCpuRun(
  pids: Record<string, number | undefined>,
  step: () => Promise<number>,
): Promise<UploadRun> {
  const children = reapedChildrenCpu();
  const { result, cpu } = await withCpu(pids, step);
  const reaped = reapedChildrenCpu() - children;
  cpu.client = (cpu.loader ?? Number.NaN) + reaped / result;
  return { seconds: result, cpu };
}

/** CPU seconds of this process's reaped children (`cutime` + `cstime` in `/proc/self/stat`); NaN off Linux. */
function reapedChildrenCpu(): number {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** `size` random bytes, written in 8 MiB blocks (never the whole file in memory). */
async function makeRandomFile(path: string, size: number): Promise<void> {
  const handle = await open(path, "w");
  try {
    const block = Buffer.alloc(8 * MiB);
    for (let written = 0; written < size; ) {
      const length = Math.min(block.length, size - written);
      randomFillSync(block, 0, length);
      await handle.write(block, 0, length);
      written += length;
    }
  } finally {
    await handle.close();
  }
}

/** Seconds `cp` takes to copy the file on the same disk (a real copy: no reflink). */
function timeCp(from: string, to: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const begin = performance.now();
    const child = spawn("cp", ["--reflink=never", from, to], { stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve((performance.now() - begin) / 1000) : reject(new Error(`cp exited with ${code}`)),
    );
  });
}

type Sent = { status: number; body: string };

/**
 * Sends a request with the first `size` bytes of `file` streamed from disk as its body: by curl
 * (`--upload-file`, no `Expect: 100-continue` round trip) when installed and `size` is the whole
 * file, else by this process over `node:http`.
 */
function sendFile(
  url: URL,
  method: "POST" | "PUT",
  headers: Record<string, string>,
  file: string,
  size: number,
): Promise<Sent> {
  if (UPLOAD_CLIENT === "curl" && statSync(file).size === size) return curlFile(url, method, headers, file);
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { ...headers, "content-length": String(size) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.once("end", () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
      );
      res.once("error", reject);
    });
    req.once("error", reject);
    pipeline(createReadStream(file, { start: 0, end: size - 1, highWaterMark: MiB }), req).catch(reject);
  });
}

/** `curl --upload-file`: the answer's status and body. */
function curlFile(
  url: URL,
  method: "POST" | "PUT",
  headers: Record<string, string>,
  file: string,
): Promise<Sent> {
  const args = [
    "--silent",
    "--show-error",
    "--request",
    method,
    "--upload-file",
    file,
    "--header",
    "Expect:",
  ];
  for (const [name, value] of Object.entries(headers)) args.push("--header", `${name}: ${value}`);
  args.push("--output", "-", "--write-out", "\n%{http_code}", url.href);
  return new Promise((resolve, reject) => {
    const child = spawn(CURL, args, { stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.once("error", reject);
    child.once("close", (code) => {
      const text = Buffer.concat(out).toString("utf8");
      const cut = text.lastIndexOf("\n");
      if (code !== 0 || cut < 0) {
        reject(new Error(`curl exited with ${code}: ${Buffer.concat(err).toString("utf8").trim()}`));
        return;
      }
      resolve({ status: Number(text.slice(cut + 1)), body: text.slice(0, cut) });
    });
  });
}

/** A baseline server (bare `node:http`, or the plain-socket ceiling): the same client and file. */
async function uploadBare(baseUrl: string, file: string, size: number): Promise<number> {
  const begin = performance.now();
  const sent = await sendFile(
    new URL("/upload", baseUrl),
    "POST",
    { "content-type": "video/mp4" },
    file,
    size,
  );
  const seconds = (performance.now() - begin) / 1000;
  if (sent.status !== 200) throw new Error(`baseline upload to ${baseUrl} answered ${sent.status}`);
  return seconds;
}

/** One v1 raw upload; seconds from the first byte sent to the answer. */
async function uploadV1(info: PublisherServerInfo, file: string, size: number): Promise<number> {
  const begin = performance.now();
  const sent = await sendFile(
    new URL("/api/v1/upload", info.url),
    "POST",
    { "x-api-key": info.apiKey, "x-filename": "bench.mp4", "content-type": "video/mp4" },
    file,
    size,
  );
  const seconds = (performance.now() - begin) / 1000;
  if (sent.status !== 200) throw new Error(`v1 upload answered ${sent.status}: ${sent.body.slice(0, 300)}`);
  await expectStored(info, (JSON.parse(sent.body) as { path: string }).path, size);
  return seconds;
}

/** One v2 upload: the presign request, then the PUT to `uploadUrl`; seconds for both. */
async function uploadV2(info: PublisherServerInfo, file: string, size: number): Promise<number> {
  const begin = performance.now();
  const presign = await fetch(new URL("/api/v2/upload", info.url), {
    method: "POST",
    headers: { "x-api-key": info.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ contentLength: size, filename: "bench.mp4", contentType: "video/mp4" }),
  });
  const answer = (await presign.json()) as { uploadUrl?: string; path?: string };
  if (presign.status !== 200 || !answer.uploadUrl || !answer.path)
    throw new Error(`v2 presign answered ${presign.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  const sent = await sendFile(new URL(answer.uploadUrl), "PUT", { "content-type": "video/mp4" }, file, size);
  const seconds = (performance.now() - begin) / 1000;
  if (sent.status !== 200) throw new Error(`v2 PUT answered ${sent.status}: ${sent.body.slice(0, 300)}`);
  await expectStored(info, answer.path, size);
  return seconds;
}

/** Checks that the stored object has every byte (the upload really landed on disk). */
async function expectStored(info: PublisherServerInfo, path: string, size: number): Promise<void> {
  const stored = await stat(join(info.storageDir, path));
  if (stored.size !== size) throw new Error(`stored ${stored.size} bytes of ${size}`);
}

function printUploads(runs: Record<UploadKind, UploadRun[]>, size: number): void {
  const best = (list: UploadRun[]) => list.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  const cp = best(runs.cp);
  const rate = (run: UploadRun) => size / MiB / run.seconds;
  const client =
    UPLOAD_CLIENT === "curl"
      ? "client: curl --upload-file (its own process)"
      : "client: this process over node:http (no curl installed)";
  const flags = process.env.BENCH_UPLOAD_V8_FLAGS;
  out(
    `\n  Upload of one ${fixed(size / MiB, 0)} MiB file streamed from disk (random bytes; service: PGlite, local storage ` +
      `on the same disk, no workers${flags ? `, V8 flags ${flags}` : ""}; ${client}): best of ${UPLOAD_ROUNDS} alternating rounds (v1 and v2 swap places each round), every round's MiB/s ` +
      `after it; RSS growth: the service's peak resident memory over its start, worst round; CPU in cores during ` +
      `the best round (client: the bench process and the children it ran)`,
  );
  out(
    `  ${"case".padEnd(40)} ${"MiB/s".padStart(7)} ${"seconds".padStart(8)} ${"vs cp".padStart(6)} ` +
      `${"RSS +MB".padStart(8)} ${"server".padStart(6)} ${"client".padStart(6)}  rounds`,
  );
  const rows: [string, UploadRun[]][] = [
    ["cp --reflink=never (baseline)", runs.cp],
    ["node:net socket → file (ceiling)", runs.ceiling],
    ["bare node:http → file (same process)", runs.bare],
    ["POST /api/v1/upload (raw body)", runs.v1],
    ["POST /api/v2/upload + presigned PUT", runs.v2],
  ];
  for (const [name, list] of rows) {
    const run = best(list);
    const growths = list.map((r) => r.rssGrowth).filter((g): g is number => g !== undefined);
    const growth = growths.length ? Math.max(...growths) / 1e6 : undefined;
    out(
      `  ${name.padEnd(40)} ${fixed(rate(run), 0).padStart(7)} ${fixed(run.seconds, 3).padStart(8)} ` +
        `${fixed(cp.seconds / run.seconds).padStart(6)} ${(growth === undefined ? "—" : fixed(growth, 1)).padStart(8)} ` +
        `${fixed(run.cpu.server ?? Number.NaN).padStart(6)} ${fixed(run.cpu.client ?? Number.NaN).padStart(6)}  ` +
        list.map((r) => fixed(rate(r), 0)).join(" "),
    );
    if (list === runs.cp || list === runs.ceiling || list === runs.bare) continue;
    const ratio = cp.seconds / run.seconds;
    verdict(
      `${name}: ${fixed(ratio)} of cp's throughput (${fixed(rate(run), 0)} vs ${fixed(rate(cp), 0)} MiB/s; target ≥ ${TARGET_UPLOAD_RATIO})`,
      ratio >= TARGET_UPLOAD_RATIO,
    );
    if (growth !== undefined)
      verdict(
        `${name}: peak RSS growth ${fixed(growth, 1)} MB (target ≤ ${TARGET_RSS_MB} MB)`,
        growth <= TARGET_RSS_MB,
      );
    if (ratio < TARGET_UPLOAD_RATIO) {
      const ceiling = best(runs.ceiling);
      const bare = best(runs.bare);
      out(
        `    where the time goes: a plain node:net socket into a file reaches ${fixed(cp.seconds / ceiling.seconds)} of cp ` +
          `(${fixed(rate(ceiling), 0)} MiB/s) and bare node:http ${fixed(cp.seconds / bare.seconds)}; this route is ` +
          `${fixed(ceiling.seconds / run.seconds)} of the ceiling and ${fixed(bare.seconds / run.seconds)} of bare; the ` +
          `service kept ${fixed(run.cpu.server ?? Number.NaN)} cores busy and the client ` +
          `${fixed(run.cpu.client ?? Number.NaN)} (cp copies inside one process; an upload also has a client ` +
          `reading the file and sending it over loopback TCP, on the same ${cpus().length} cores)`,
      );
    }
  }
}

// ——————————————————————————————————————— 2. scheduled publishing ———————————————————————————————————————

async function reachablePostgres(): Promise<Database | undefined> {
  const admin = await openPostgres(POSTGRES_URL, { maxConnections: 1 });
  try {
    await admin.query("SELECT 1");
    return admin;
  } catch {
    await admin.close().catch(() => undefined);
    return undefined;
  }
}

export type Worker = ChildProcess & { pid: number };

type PhaseResult = {
  name: string;
  targets: number;
  published: number;
  failed: number;
  /** Not published by the phase's deadline (then canceled so they do not run into the next phase). */
  unfinished: number;
  /** Per target, ms: published minus due; for an unfinished one, the deadline minus due (a lower bound). */
  lateness: number[];
  /** From the first due time to the last target published, s; projected at the phase's rate when unfinished. */
  drainSeconds: number;
  /** Published targets per second from the first due time to the last published (or the deadline). */
  rate: number;
  /** Sandbox records: targets with more than one, published targets with none, records of unpublished targets. */
  duplicated: number;
  missing: number;
  stray: number;
  errors: string[];
  cpu: CpuShares;
  /** Busy cores of the whole machine during the phase (other work on the machine included). */
  machineCores: number;
};

async function benchScheduling(admin: Database): Promise<void> {
  const name = `publisher_bench_${randomBytes(4).toString("hex")}`;
  await admin.exec(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const dataDir = await mkdtemp(join(tmpdir(), "bench-publisher-workers-"));
  let db: Database | undefined;
  let sandbox: ChildProcess | undefined;
  const workers: Worker[] = [];
  try {
    db = await openPostgres(databaseUrl);
    await migrateService(publisherService, db);
    const started = await forkServer<PublisherSandboxInfo>("./servers/publisher-sandbox.ts");
    sandbox = started.child;
    const sandboxUrl = started.message.url;
    const demo = await seedDemoPublisher(db, {
      sandboxUrl,
      publicUrl: "http://127.0.0.1:3002",
      sealer: createConnectionSealer(TOKEN_SECRET),
      bluesky: { plcUrl: started.message.plcUrl },
    });
    const direct = await directCreateRecord(sandboxUrl);
    for (let index = 0; index < WORKERS; index++)
      workers.push(await startWorker(databaseUrl, dataDir, sandboxUrl));
    const pids = {
      sandbox: sandbox.pid,
      ...Object.fromEntries(workers.map((worker, index) => [`worker${index + 1}`, worker.pid])),
    };
    const phase = (label: string, spreadMs: number) =>
      runPhase({
        db: db as Database,
        sandboxUrl,
        accountId: demo.accountId,
        connectionId: demo.connections.bluesky,
        label,
        spreadMs,
        pids,
      });
    const spread = await phase(`${TARGETS} due evenly over ${SPREAD_SECONDS} s`, SPREAD_SECONDS * 1000);
    const burst = await phase(`${TARGETS} due in the same second`, 0);
    printScheduling([spread, burst], direct, WORKER_NOTE);
  } finally {
    for (const worker of workers) await stopWorker(worker);
    if (sandbox) await stopServer(sandbox);
    await db?.close();
    await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * The baseline: the sandbox's own createRecord rate, called directly at the workers' combined
 * concurrency (two processes × their concurrency) with a session of the demo account.
 */
async function directCreateRecord(sandboxUrl: string): Promise<FixedResult> {
  const session = await fetch(`${sandboxUrl}/xrpc/com.atproto.server.createSession`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ identifier: DEMO_BLUESKY.handle, password: DEMO_BLUESKY.appPassword }),
  });
  const { accessJwt, did } = (await session.json()) as { accessJwt: string; did: string };
  const requests = Array.from({ length: 3000 }, (_, index) => ({
    method: "POST" as const,
    path: "/xrpc/com.atproto.repo.createRecord",
    headers: { "content-type": "application/json", authorization: `Bearer ${accessJwt}` },
    body: JSON.stringify({
      repo: did,
      collection: "app.bsky.feed.post",
      rkey: newTid(new Date()),
      record: { $type: "app.bsky.feed.post", text: `baseline ${index}`, createdAt: new Date().toISOString() },
    }),
  }));
  await runFixed(sandboxUrl, requests.splice(0, 300), {
    concurrency: WORKERS * WORKER_CONCURRENCY,
    maxSeconds: 5,
  });
  return runFixed(sandboxUrl, requests, { concurrency: WORKERS * WORKER_CONCURRENCY, maxSeconds: 5 });
}

/**
 * A worker process (`src/worker.ts`) on the run's database, its platforms at the sandbox (`env`:
 * more settings); resolves once it runs.
 */
export function startWorker(
  databaseUrl: string,
  dataDir: string,
  sandboxUrl: string,
  env: Record<string, string> = {},
): Promise<Worker> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith("PUBLISHER_") && key !== "DATABASE_URL"),
  );
  const child = spawn(process.execPath, ["--import", "tsx", WORKER_SCRIPT], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...inherited,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      LOG_LEVEL: "info",
      PUBLISHER_TOKEN_SECRET: TOKEN_SECRET,
      PUBLISHER_PLATFORM_URL: sandboxUrl,
      PUBLISHER_STORAGE_DIR: join(dataDir, "media"),
      PUBLISHER_WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
      PUBLISHER_WORKER_POLL_MS: String(WORKER_POLL_MS),
      ...env,
    },
  });
  // Its warnings and errors are kept (the last 4 KiB) and shown if it fails to start.
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4096);
  });
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => fail(new Error("a worker did not start within 60 s")), 60_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString("utf8")).slice(-4096);
      if (!seen.includes("publisher workers running")) return;
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stdout?.resume();
      child.off("exit", onExit);
      resolve(child as Worker);
    };
    const onExit = (code: number | null) =>
      fail(new Error(`a worker exited with ${code} before running:\n${stderr}`));
    child.stdout?.on("data", onData);
    child.once("exit", onExit);
  });
}

/** SIGTERM (the worker finishes its running targets and closes), SIGKILL after 20 s. */
export async function stopWorker(worker: Worker): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  worker.kill("SIGTERM");
  const kill = setTimeout(() => worker.kill("SIGKILL"), 20_000);
  await exited;
  clearTimeout(kill);
}

/** Busy and total jiffies of the whole machine (`/proc/stat`). */
function machineTicks(): { busy: number; total: number } {
  try {
    const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "")
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const total = fields.reduce((sum, value) => sum + value, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: Number.NaN, total: Number.NaN };
  }
}

/** How long a phase may run past its last due time before what is left is canceled. */
const PHASE_GRACE_MS = Number(process.env.BENCH_PHASE_GRACE_SECONDS ?? 90) * 1000;

/** The stored content of a bench post: text only, each platform's defaults. */
export const POST_CONTENT = {
  caption: "",
  mediaItems: [],
  youtube: { privacy: "private" },
  tiktok: {
    postMode: "DIRECT_POST",
    privacy: "PUBLIC_TO_EVERYONE",
    commercialType: 0,
    disableComment: false,
    disableDuet: false,
    disableStitch: false,
  },
};

/**
 * One phase: `TARGETS` Bluesky text posts (one target each, written as the API writes them), due
 * from three seconds ahead over `spreadMs`, published by the running workers. Waits until none is
 * left or `PHASE_GRACE_MS` past the last due time; then cancels what no worker holds, lets the
 * held ones settle, and reads lateness from the database and the records from the sandbox.
 */
async function runPhase(input: {
  db: Database;
  sandboxUrl: string;
  accountId: string;
  connectionId: string;
  label: string;
  spreadMs: number;
  pids: Record<string, number | undefined>;
}): Promise<PhaseResult> {
  const { db, spreadMs } = input;
  const run = randomBytes(3).toString("hex");
  const prefix = `bench ${run} #`;
  const like = `post_bench${run}_%`;
  const first = new Date(Date.now() + 3000);
  const step = TARGETS > 1 ? spreadMs / TARGETS : 0;
  const left = async () => {
    const [row] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM publisher.post_targets
       WHERE post_id LIKE $1 AND status IN ('scheduled', 'publishing')`,
      [like],
    );
    return row?.n ?? 0;
  };
  const ticks = machineTicks();
  let endedAt = 0;
  const { cpu } = await withCpu(input.pids, async () => {
    await db.query(
      `WITH due AS (
         SELECT g, $1::timestamptz + (g * $2::float8) * interval '1 millisecond' AS at
         FROM generate_series(0, $3::int - 1) g),
       posts AS (
         INSERT INTO publisher.posts (id, account_id, status, content, connection_ids, platforms, scheduled_for, created_at, updated_at)
         SELECT $4::text || g, $5, 'scheduled', jsonb_set($6::jsonb, '{caption}', to_jsonb($7::text || g)),
           ARRAY[$8], ARRAY['bluesky'], at, now(), now()
         FROM due RETURNING id, scheduled_for)
       INSERT INTO publisher.post_targets (id, post_id, connection_id, platform, status, due_at, next_attempt_at, created_at, updated_at)
       SELECT 'tgt_' || id, id, $8, 'bluesky', 'scheduled', scheduled_for, scheduled_for, now(), now() FROM posts`,
      [
        first,
        step,
        TARGETS,
        `post_bench${run}_`,
        input.accountId,
        JSON.stringify(POST_CONTENT),
        prefix,
        input.connectionId,
      ],
    );
    const deadline = first.getTime() + spreadMs + PHASE_GRACE_MS;
    while ((await left()) > 0 && Date.now() < deadline) await sleep(250);
    endedAt = Date.now();
  });
  const after = machineTicks();
  const machineCores = ((after.busy - ticks.busy) / (after.total - ticks.total)) * cpus().length;
  // What no worker holds is canceled (the API's cancel, for every target at once); held ones settle.
  await db.query(
    `UPDATE publisher.post_targets SET status = 'canceled', updated_at = now()
     WHERE post_id LIKE $1 AND status IN ('scheduled', 'publishing') AND claimed_by IS NULL`,
    [like],
  );
  for (let waited = 0; (await left()) > 0 && waited < 60_000; waited += 250) await sleep(250);
  const rows = await db.query<{
    status: string;
    late: number;
    unfinishedLate: number;
    error: string | null;
    caption: string;
  }>(
    `SELECT t.status, extract(epoch FROM t.updated_at - t.due_at)::float8 * 1000 AS late,
       extract(epoch FROM to_timestamp($2::float8 / 1000) - t.due_at)::float8 * 1000 AS "unfinishedLate",
       t.error, p.content->>'caption' AS caption
     FROM publisher.post_targets t JOIN publisher.posts p ON p.id = t.post_id WHERE t.post_id LIKE $1`,
    [like, endedAt],
  );
  const records = (await (await fetch(`${input.sandboxUrl}/_sandbox/bluesky/records`)).json()) as {
    records: { value: { text?: string } }[];
  };
  const perText = new Map<string, number>();
  for (const record of records.records) {
    const text = record.value.text ?? "";
    if (text.startsWith(prefix)) perText.set(text, (perText.get(text) ?? 0) + 1);
  }
  const published = rows.filter((row) => row.status === "published");
  const unfinished = rows.filter((row) => row.status === "canceled");
  const [span] = await db.query<{ seconds: number | null }>(
    `SELECT extract(epoch FROM max(updated_at) - min(due_at))::float8 AS seconds
     FROM publisher.post_targets WHERE post_id LIKE $1 AND status = 'published'`,
    [like],
  );
  const publishedSpan = span?.seconds ?? Number.NaN;
  const elapsed = unfinished.length > 0 ? (endedAt - first.getTime()) / 1000 : publishedSpan;
  const rate = published.length / elapsed;
  return {
    name: input.label,
    targets: rows.length,
    published: published.length,
    failed: rows.filter((row) => row.status === "failed").length,
    unfinished: unfinished.length,
    lateness: rows
      .filter((row) => row.status === "published" || row.status === "canceled")
      .map((row) => (row.status === "published" ? row.late : row.unfinishedLate)),
    drainSeconds: unfinished.length > 0 ? rows.length / rate : publishedSpan,
    rate,
    duplicated: [...perText.values()].filter((count) => count > 1).length,
    missing: published.filter((row) => !perText.has(row.caption)).length,
    stray: rows.filter((row) => row.status !== "published" && perText.has(row.caption)).length,
    errors: [...new Set(rows.map((row) => row.error).filter((error): error is string => !!error))].slice(
      0,
      3,
    ),
    cpu,
    machineCores,
  };
}

function printScheduling(phases: PhaseResult[], direct: FixedResult, workerNote: string): void {
  const note = TARGETS === FULL_TARGETS ? "" : ` (BENCH_TARGETS=${TARGETS}, not ${FULL_TARGETS})`;
  out(
    `\n  Scheduled Bluesky text posts on PostgreSQL${note}: ${WORKERS} worker processes (src/worker.ts, ${workerNote}) ` +
      `publishing through the real adapter to the sandbox (its own process). Lateness: the target's updated_at when ` +
      `it became published minus due_at (">": a lower bound, targets were left at the deadline, ${PHASE_GRACE_MS / 1000} s ` +
      `after the last due; drain then projected at the phase's rate). twice / none / stray: targets with more than one ` +
      `sandbox record, published ones with none, unpublished ones with one`,
  );
  out(
    `  ${"case".padEnd(38)} ${"per s".padStart(6)} ${"p50 s".padStart(8)} ${"p99 s".padStart(8)} ${"drain s".padStart(8)} ` +
      `${"published".padStart(11)} ${"failed".padStart(6)} ${"twice".padStart(5)} ${"none".padStart(5)} ${"stray".padStart(5)} ` +
      `${"cores".padStart(5)}`,
  );
  out(
    `  ${"sandbox createRecord direct (baseline)".padEnd(38)} ${fixed(direct.rps, 0).padStart(6)} ` +
      `${fixed(direct.p50 / 1000, 3).padStart(8)} ${fixed(direct.p99 / 1000, 3).padStart(8)} ` +
      `${fixed(TARGETS / direct.rps, 1).padStart(8)} ${"—".padStart(11)} ${String(direct.errors).padStart(6)}`,
  );
  const p = (phase: PhaseResult, q: number) => {
    const sorted = [...phase.lateness].sort((a, b) => a - b);
    const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
    const bound = rank >= phase.published ? ">" : "";
    return {
      ms: percentile(phase.lateness, q),
      text: `${bound}${fixed(percentile(phase.lateness, q) / 1000, 2)}`,
    };
  };
  for (const phase of phases) {
    out(
      `  ${phase.name.padEnd(38)} ${fixed(phase.rate, 0).padStart(6)} ${p(phase, 0.5).text.padStart(8)} ` +
        `${p(phase, 0.99).text.padStart(8)} ${`${phase.unfinished ? "~" : ""}${fixed(phase.drainSeconds, 1)}`.padStart(8)} ` +
        `${`${phase.published}/${phase.targets}`.padStart(11)} ${String(phase.failed).padStart(6)} ` +
        `${String(phase.duplicated).padStart(5)} ${String(phase.missing).padStart(5)} ${String(phase.stray).padStart(5)} ` +
        `${fixed(phase.machineCores, 2).padStart(5)}`,
    );
    if (phase.errors.length) out(`    errors seen: ${phase.errors.join(" | ")}`);
    const cpu = Object.entries(phase.cpu)
      .map(([name, share]) => `${name} ${fixed(share ?? Number.NaN)}`)
      .join(", ");
    out(
      `    CPU in cores: ${cpu}; the rest of the machine's busy cores: PostgreSQL and anything else running`,
    );
  }
  const [spread, burst] = phases as [PhaseResult, PhaseResult];
  const spreadP99 = p(spread, 0.99);
  verdict(
    `${spread.name}: p99 lateness ${spreadP99.text} s (target ≤ ${TARGET_LATENESS_P99_MS / 1000} s)${note}`,
    spreadP99.ms <= TARGET_LATENESS_P99_MS && spread.unfinished === 0,
  );
  for (const phase of phases) {
    verdict(
      `${phase.name}: ${phase.duplicated} targets published twice, ${phase.missing} published without a record, ` +
        `${phase.stray} records of unpublished targets (${phase.published}/${phase.targets} published; target: none twice)`,
      phase.duplicated === 0 && phase.missing === 0 && phase.stray === 0,
    );
  }
  out(
    `  ${burst.name}: ${burst.unfinished ? "would drain" : "drained"} in ${fixed(burst.drainSeconds, 1)} s ` +
      `(${fixed(burst.rate, 0)} targets/s; the sandbox alone answers ${fixed(direct.rps, 0)} createRecord/s at the ` +
      `same concurrency: ${fixed(TARGETS / direct.rps, 1)} s for ${TARGETS})`,
  );
  if (spreadP99.ms > TARGET_LATENESS_P99_MS || spread.unfinished > 0) {
    out(
      `    where the time goes: ${fixed(burst.rate, 0)} targets/s at most against ${fixed(TARGETS / SPREAD_SECONDS, 0)}/s due, ` +
        `${WORKERS} × ${WORKER_CONCURRENCY} targets in flight. A target costs a claim, the post's status, a handle ` +
        `save (a synchronous commit: a disk flush, shared by the targets in flight through group commit), ` +
        `createRecord and a settlement; the machine's busy cores (above) say whether PostgreSQL and the rest of ` +
        `the machine or the workers' concurrency bound it`,
    );
  }
}

// ———————————————————————————————————————————— 3. queue slots ————————————————————————————————————————————

/**
 * Lookup times (ms; `total` includes BEGIN and COMMIT), the last slot found, and the statements one
 * lookup sent (BEGIN and COMMIT included: each is a round trip on PostgreSQL).
 */
type SlotTimes = { total: number[]; sql: number[]; compute: number[]; slot?: Date; statements?: number };

type Lookup = (db: Database, accountId: string, connectionId: string) => Promise<SlotTimes>;

/** The transaction a lookup runs in, timed from BEGIN to COMMIT, its statements counted. */
async function timedTransaction(
  db: Database,
  work: (tx: Queryable, times: SlotTimes) => Promise<void>,
): Promise<SlotTimes> {
  const times: SlotTimes = { total: [], sql: [], compute: [], statements: 2 };
  const begin = performance.now();
  await db.transaction((tx) =>
    work(
      {
        query: (sql, params, options) => {
          times.statements = (times.statements ?? 0) + 1;
          return tx.query(sql, params, options);
        },
        exec: (sql) => tx.exec(sql),
      },
      times,
    ),
  );
  times.total.push(performance.now() - begin);
  return times;
}

/**
 * The slot lookup `POST /api/v1/queue` makes, called in-process: in one transaction the account's
 * advisory lock with its schedule (one statement), then the first of the horizon's candidate slots
 * the connection has free (one statement: an anti-join probing the `(account_id, scheduled_for)`
 * index per candidate, stopped at the first free one). The route then inserts the post; not timed
 * here, nothing is written.
 */
const lookupSlot: Lookup = (db, accountId, connectionId) =>
  timedTransaction(db, async (tx, times) => {
    const settings = await lockQueueReadSettings(tx, accountId);
    const computeBegin = performance.now();
    const candidates = candidateSlots({ now: new Date(), settings });
    const sqlBegin = performance.now();
    times.slot = await firstFreeSlot(tx, { accountId, connectionIds: [connectionId], at: candidates });
    times.sql.push(performance.now() - sqlBegin);
    times.compute.push(sqlBegin - computeBegin);
  });

/**
 * The lookup as it was before (same run, for comparison): the lock, the schedule and the taken
 * set of every candidate slot in three statements (PostgreSQL read the account's posts in full
 * for the last: a sequential scan), then the first free slot in JavaScript.
 */
const earlierLookupSlot: Lookup = (db, accountId, connectionId) =>
  timedTransaction(db, async (tx, times) => {
    await lockAccountQueue(tx, accountId);
    const settings = await queueSettingsOf(tx, accountId);
    const computeBegin = performance.now();
    const candidates = candidateSlots({ now: new Date(), settings });
    const sqlBegin = performance.now();
    const taken = await takenSlots(tx, { accountId, connectionIds: [connectionId], at: candidates });
    const findBegin = performance.now();
    times.slot = candidates.find((candidate) => !taken.has(candidate.getTime()));
    times.sql.push(findBegin - sqlBegin);
    times.compute.push(sqlBegin - computeBegin + (performance.now() - findBegin));
  });

/**
 * An account (3 posts a day, every day, UTC) with one Bluesky connection and `posts` scheduled
 * posts: its first 200 queue slots taken (so the search walks about 67 days), the rest at random
 * minutes over the 90-day horizon, as the schedule route would place them.
 */
async function seedQueueAccount(
  db: Database,
  posts: number,
): Promise<{ accountId: string; connectionId: string }> {
  const account = await createAccount(db, { name: `Queue bench ${posts}` });
  await setQueueSettings(db, account.id, {
    postsPerDay: 3,
    allowedDays: [0, 1, 2, 3, 4, 5, 6],
    timeZone: "UTC",
  });
  const connectionId = `conn_bench_${randomBytes(4).toString("hex")}`;
  await db.query(
    `INSERT INTO publisher.connections (id, account_id, platform, account_name, platform_account_id, tokens)
     VALUES ($1, $2, 'bluesky', 'bench', $1, 'not used')`,
    [connectionId, account.id],
  );
  if (posts === 0) return { accountId: account.id, connectionId };
  const settings = await queueSettingsOf(db, account.id);
  const slots: Date[] = [];
  let now = new Date();
  while (slots.length < Math.min(200, posts)) {
    const slot = nextFreeSlot({ now, settings, taken: new Set() }) as Date;
    slots.push(slot);
    now = slot;
  }
  const horizonMs = QUEUE_HORIZON_DAYS * 86_400_000;
  const start = Date.now() + 3_600_000;
  const times = Array.from({ length: posts }, (_, index) =>
    index < slots.length
      ? (slots[index] as Date)
      : new Date(Math.floor((start + Math.random() * horizonMs) / 60_000) * 60_000 + 30_000),
  );
  const content = JSON.stringify({ caption: "queued", mediaItems: [] });
  for (let offset = 0; offset < times.length; offset += 2000) {
    const batch = times.slice(offset, offset + 2000);
    await db.query(
      `INSERT INTO publisher.posts (id, account_id, status, content, connection_ids, platforms, scheduled_for)
       SELECT 'post_q' || md5(random()::text || at::text), $1, 'scheduled', $2::jsonb, ARRAY[$3], ARRAY['bluesky'], at
       FROM unnest($4::timestamptz[]) AS at`,
      [account.id, content, connectionId, batch],
    );
  }
  await db.query("ANALYZE publisher.posts");
  return { accountId: account.id, connectionId };
}

type QueueRow = { name: string; times: SlotTimes };

async function timeLookups(
  db: Database,
  accountId: string,
  connectionId: string,
  lookup: Lookup = lookupSlot,
): Promise<SlotTimes> {
  for (let index = 0; index < QUEUE_WARM_UP; index++) await lookup(db, accountId, connectionId);
  const all: SlotTimes = { total: [], sql: [], compute: [] };
  for (let index = 0; index < QUEUE_RUNS; index++) {
    const times = await lookup(db, accountId, connectionId);
    all.total.push(...times.total);
    all.sql.push(...times.sql);
    all.compute.push(...times.compute);
    all.slot = times.slot;
    all.statements = times.statements;
  }
  return all;
}

async function benchQueueSlots(postgres: Database | undefined): Promise<void> {
  const rows: QueueRow[] = [];
  const measure = async (kind: string, db: Database) => {
    const empty = await seedQueueAccount(db, 0);
    const full = await seedQueueAccount(db, QUEUE_POSTS);
    rows.push({
      name: `${kind}, no posts (baseline)`,
      times: await timeLookups(db, empty.accountId, empty.connectionId),
    });
    rows.push({
      name: `${kind}, ${QUEUE_POSTS} scheduled posts`,
      times: await timeLookups(db, full.accountId, full.connectionId),
    });
    rows.push({
      name: `${kind}, ${QUEUE_POSTS} posts, earlier lookup (comparison)`,
      times: await timeLookups(db, full.accountId, full.connectionId, earlierLookupSlot),
    });
  };
  const pglite = await openPGlite();
  try {
    await migrateService(publisherService, pglite);
    await measure("PGlite (in-process)", pglite);
  } finally {
    await pglite.close();
  }
  if (postgres) {
    const name = `publisher_queue_${randomBytes(4).toString("hex")}`;
    await postgres.exec(`CREATE DATABASE ${name}`);
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${name}`;
    const db = await openPostgres(url.toString());
    try {
      await migrateService(publisherService, db);
      await measure("PostgreSQL", db);
    } finally {
      await db.close();
      await postgres.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  }
  out(
    `\n  Queue-slot lookup of POST /api/v1/queue, called in-process at concurrency 1 (one transaction: the advisory ` +
      `lock with the schedule, then the first free candidate slot; 3 posts a day, one connection): ${QUEUE_RUNS} ` +
      `lookups after ${QUEUE_WARM_UP} warm-up, timed from BEGIN to COMMIT. The ${QUEUE_POSTS} posts: the first 200 queue slots ` +
      `(so ~200 candidates are taken before a free one), the rest at random minutes within the ` +
      `${QUEUE_HORIZON_DAYS}-day horizon. sql = the free-slot (or taken-set) query, compute = the candidate slots ` +
      `(worked out once per schedule and local day, so the warm-up pays for it), stmts = statements per lookup with BEGIN and COMMIT (round trips on PostgreSQL)`,
  );
  out(
    `  ${"case".padEnd(58)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ${"sql p50".padStart(7)} ${"compute p50".padStart(11)} ${"stmts".padStart(5)} slot found`,
  );
  for (const row of rows) {
    const { times } = row;
    out(
      `  ${row.name.padEnd(58)} ${fixed(percentile(times.total, 0.5)).padStart(7)} ${fixed(percentile(times.total, 0.99)).padStart(7)} ` +
        `${fixed(percentile(times.sql, 0.5)).padStart(7)} ${fixed(percentile(times.compute, 0.5)).padStart(11)} ` +
        `${String(times.statements ?? 0).padStart(5)} ` +
        `${times.slot ? `in ${fixed((times.slot.getTime() - Date.now()) / 86_400_000, 1)} days` : "none"}`,
    );
    if (row.name.includes("baseline") || row.name.includes("comparison")) continue;
    const p99 = percentile(times.total, 0.99);
    verdict(
      `queue-slot lookup, ${row.name}: p99 ${fixed(p99)} ms (target ≤ ${TARGET_QUEUE_P99_MS} ms)`,
      p99 <= TARGET_QUEUE_P99_MS,
    );
    if (p99 > TARGET_QUEUE_P99_MS) {
      out(
        `    where the time goes: the free-slot query ${fixed(percentile(times.sql, 0.99))} ms at p99, the candidate ` +
          `slots ${fixed(percentile(times.compute, 0.99))} ms, the rest the transaction's ${times.statements} ` +
          `statements with its advisory lock (compare the baseline's p99, with no posts)`,
      );
    }
  }
}

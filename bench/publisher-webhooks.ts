import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Database, openPostgres } from "@app/db";
import { createConnectionSealer, publisherService } from "@app/publisher";
import { seedDemoPublisher } from "@app/publisher/demo";
import { migrateService } from "@app/runtime";
import { appendEvents } from "../services/publisher/src/store/events.ts";
import { createEndpoint } from "../services/publisher/src/webhooks/endpoint-store.ts";
import { createWebhookSealer } from "../services/publisher/src/webhooks/secrets.ts";
import { forkServer, stopServer } from "./lib.ts";
import { type FixedResult, percentile, runFixed } from "./loader.ts";
import { POST_CONTENT, startWorker, stopWorker, type Worker } from "./publisher.ts";
import type { PublisherSandboxInfo } from "./servers/publisher-sandbox.ts";

const TARGETS = Number(process.env.BENCH_TARGETS ?? 10_000);
const FULL_TARGETS = 10_000;
const SPREAD_SECONDS = Number(process.env.BENCH_SPREAD_SECONDS ?? 60);
const GRACE_MS = Number(process.env.BENCH_PHASE_GRACE_SECONDS ?? 90) * 1000;
const WORKERS = 2;
/** How long the events recorded by the end are given to arrive before the unreceived count as lost. */
const DRAIN_MS = 30_000;
/** The webhook workers' settings: the service's defaults unless set for an exploration. */
const WEBHOOK_CONCURRENCY = process.env.BENCH_WEBHOOK_CONCURRENCY;
const WEBHOOK_POLL_MS = process.env.BENCH_WEBHOOK_POLL_MS;
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const TOKEN_SECRET = "publisher-webhook-bench-secret-0123456789abcdef";
const TARGET_P99_MS = 2000;
/** The events a full run's publishing records a second: three a target, 10,000 targets over 60 s. */
const EVENTS_ALONE_PER_SECOND = (3 * FULL_TARGETS) / 60;

const out = (text: string) => process.stdout.write(`${text}\n`);
const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "—");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the receiver saw of each webhook-id: how often, and when first. */
type Receipts = Map<string, { count: number; firstAt: number }>;

/** A receiver in this process answering 200 at once, counting each webhook-id's deliveries. */
async function startReceiver(): Promise<{ url: string; origin: string; receipts: Receipts; server: Server }> {
  const receipts: Receipts = new Map();
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const id = String(req.headers["webhook-id"] ?? "");
      const seen = receipts.get(id);
      if (seen) seen.count += 1;
      else receipts.set(id, { count: 1, firstAt: Date.now() });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${origin}/hooks`, origin, receipts, server };
}

/**
 * The publisher's webhooks (issue 18): `TARGETS` Bluesky text posts due evenly over
 * `SPREAD_SECONDS`, published by two worker processes on PostgreSQL, every event they record
 * (`post.publishing`, `target.published`, `post.published`: three a post) delivered to one
 * subscribed endpoint by the same processes' webhook workers. Measured: events delivered per
 * second, the time from the state change (the event's `occurred_at`) to its first receipt, events
 * never received, and deliveries beyond the first per event (the receiver answers 200 at once).
 * Baseline: the receiver alone, posted to directly at the workers' combined concurrency.
 */
export async function benchPublisherWebhooks(): Promise<void> {
  out(
    `\nPublisher webhooks (${TARGETS} targets over ${SPREAD_SECONDS} s, one endpoint subscribed to every event)`,
  );
  const admin = await openPostgres(POSTGRES_URL, { maxConnections: 1 });
  try {
    await admin.query("SELECT 1");
  } catch {
    await admin.close().catch(() => undefined);
    out(`  PostgreSQL not reachable at ${POSTGRES_URL.replace(/\/\/[^@/]*@/, "//…@")}: skipped`);
    return;
  }
  const name = `publisher_webhooks_bench_${randomBytes(4).toString("hex")}`;
  await admin.exec(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  const dataDir = await mkdtemp(join(tmpdir(), "bench-publisher-webhooks-"));
  const receiver = await startReceiver();
  let db: Database | undefined;
  let sandbox: ChildProcess | undefined;
  const workers: Worker[] = [];
  try {
    db = await openPostgres(url.toString());
    await migrateService(publisherService, db);
    const started = await forkServer<PublisherSandboxInfo>("./servers/publisher-sandbox.ts");
    sandbox = started.child;
    const demo = await seedDemoPublisher(db, {
      sandboxUrl: started.message.url,
      publicUrl: "http://127.0.0.1:3002",
      sealer: createConnectionSealer(TOKEN_SECRET),
      bluesky: { plcUrl: started.message.plcUrl },
    });
    const baseline = await receiverAlone(receiver.origin);
    receiver.receipts.clear();
    await createEndpoint(
      db,
      createWebhookSealer(TOKEN_SECRET),
      { accountId: demo.accountId, url: receiver.url },
      new Date(),
    );
    const env: Record<string, string> = {
      PUBLISHER_TOKEN_SECRET: TOKEN_SECRET,
      PUBLISHER_WEBHOOK_ALLOW_PRIVATE: "true",
      ...(WEBHOOK_CONCURRENCY ? { PUBLISHER_WEBHOOK_CONCURRENCY: WEBHOOK_CONCURRENCY } : {}),
      ...(WEBHOOK_POLL_MS ? { PUBLISHER_WEBHOOK_POLL_MS: WEBHOOK_POLL_MS } : {}),
    };
    for (let index = 0; index < WORKERS; index++) {
      workers.push(await startWorker(url.toString(), dataDir, started.message.url, env));
    }
    const result = await publishAndDeliver(db, demo, receiver.receipts);
    print(result, baseline);
    printEventsAlone(await deliverEventsAlone(db, demo.accountId, receiver.receipts));
  } finally {
    for (const worker of workers) await stopWorker(worker);
    if (sandbox) await stopServer(sandbox);
    await db?.close();
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
    await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * The receiver alone: Standard Webhooks-sized POSTs at what the workers may send one account at
 * once by default (half of each one's 64 slots).
 */
async function receiverAlone(origin: string): Promise<FixedResult> {
  const body = JSON.stringify({
    type: "target.published",
    timestamp: new Date().toISOString(),
    data: { postId: "post_x", targetId: "tgt_x", platform: "bluesky", platformPostId: "at://x", url: null },
  });
  const requests = Array.from({ length: 5000 }, (_, index) => ({
    method: "POST" as const,
    path: "/hooks",
    headers: { "content-type": "application/json", "webhook-id": `evt_baseline_${index}` },
    body,
  }));
  return runFixed(origin, requests, { concurrency: WORKERS * 32, maxSeconds: 5 });
}

type Outcome = {
  events: number;
  received: number;
  lost: number;
  duplicates: number;
  latencies: number[];
  rate: number;
  published: number;
  unfinished: boolean;
};

/**
 * Writes the posts (as the API does, without their `post.scheduled`: only the workers' state
 * changes are measured), waits until every target is settled and every event received (or the
 * grace after the last due time passes), and reads the events against the receipts.
 */
async function publishAndDeliver(
  db: Database,
  demo: { accountId: string; connections: { bluesky: string } },
  receipts: Receipts,
): Promise<Outcome> {
  const first = new Date(Date.now() + 3000);
  const step = TARGETS > 1 ? (SPREAD_SECONDS * 1000) / TARGETS : 0;
  await db.query(
    `WITH due AS (
       SELECT g, $1::timestamptz + (g * $2::float8) * interval '1 millisecond' AS at
       FROM generate_series(0, $3::int - 1) g),
     posts AS (
       INSERT INTO publisher.posts (id, account_id, status, content, connection_ids, platforms, scheduled_for, created_at, updated_at)
       SELECT 'post_hook' || g, $4, 'scheduled', jsonb_set($5::jsonb, '{caption}', to_jsonb('webhook bench #' || g)),
         ARRAY[$6], ARRAY['bluesky'], at, now(), now()
       FROM due RETURNING id, scheduled_for)
     INSERT INTO publisher.post_targets (id, post_id, connection_id, platform, status, due_at, next_attempt_at, created_at, updated_at)
     SELECT 'tgt_' || id, id, $6, 'bluesky', 'scheduled', scheduled_for, scheduled_for, now(), now() FROM posts`,
    [first, step, TARGETS, demo.accountId, JSON.stringify(POST_CONTENT), demo.connections.bluesky],
  );
  const deadline = first.getTime() + SPREAD_SECONDS * 1000 + GRACE_MS;
  const counts = async () => {
    const [row] = await db.query<{ open: number; events: number }>(
      `SELECT (SELECT count(*)::int FROM publisher.post_targets WHERE status IN ('scheduled', 'publishing')) AS open,
         (SELECT count(*)::int FROM publisher.events) AS events`,
    );
    return row ?? { open: 0, events: 0 };
  };
  for (;;) {
    const now = await counts();
    if ((now.open === 0 && receipts.size >= now.events) || Date.now() > deadline) break;
    await sleep(250);
  }
  // The events recorded by now are the ones measured: each gets a drain window to arrive (a
  // target still publishing at the deadline records more, which are not counted), then a moment
  // for any late duplicate.
  const { open } = await counts();
  const events = await db.query<{ id: string; at: Date }>(
    "SELECT id, occurred_at AS at FROM publisher.events",
  );
  const drainUntil = Date.now() + DRAIN_MS;
  while (events.some((event) => !receipts.has(event.id)) && Date.now() < drainUntil) await sleep(250);
  await sleep(2000);
  const [published] = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM publisher.post_targets WHERE status = 'published'",
  );
  const latencies: number[] = [];
  let lastReceipt = 0;
  let duplicates = 0;
  for (const event of events) {
    const receipt = receipts.get(event.id);
    if (!receipt) continue;
    latencies.push(receipt.firstAt - event.at.getTime());
    lastReceipt = Math.max(lastReceipt, receipt.firstAt);
    duplicates += receipt.count - 1;
  }
  const firstEvent = Math.min(...events.map((event) => event.at.getTime()));
  return {
    events: events.length,
    received: latencies.length,
    lost: events.length - latencies.length,
    duplicates,
    latencies,
    rate: latencies.length / ((lastReceipt - firstEvent) / 1000),
    published: published?.n ?? 0,
    unfinished: open > 0,
  };
}

function print(result: Outcome, baseline: FixedResult): void {
  const note = TARGETS === FULL_TARGETS ? "" : ` (BENCH_TARGETS=${TARGETS}, not ${FULL_TARGETS})`;
  const settings =
    WEBHOOK_CONCURRENCY || WEBHOOK_POLL_MS
      ? `webhook concurrency ${WEBHOOK_CONCURRENCY ?? "64"}, poll ${WEBHOOK_POLL_MS ?? "500"} ms: set by BENCH_WEBHOOK_*`
      : "webhook concurrency 64, poll 500 ms: the service's defaults";
  out(
    `  ${WORKERS} worker processes (src/worker.ts, ${settings}) on PostgreSQL${note}: the events of ` +
      `${result.published}/${TARGETS} published targets, from the outbox to a receiver in the bench process. ` +
      `Latency: first receipt minus the event's occurred_at (the state change's commit, the workers' clock)`,
  );
  const p50 = percentile(result.latencies, 0.5);
  const p99 = percentile(result.latencies, 0.99);
  out(
    `  ${"case".padEnd(34)} ${"per s".padStart(7)} ${"p50 s".padStart(7)} ${"p99 s".padStart(7)} ${"lost".padStart(6)} ${"twice".padStart(6)}`,
  );
  out(
    `  ${"receiver alone (baseline)".padEnd(34)} ${fixed(baseline.rps, 0).padStart(7)} ${fixed(baseline.p50 / 1000, 3).padStart(7)} ` +
      `${fixed(baseline.p99 / 1000, 3).padStart(7)} ${"—".padStart(6)} ${"—".padStart(6)}`,
  );
  out(
    `  ${`${result.events} events delivered`.padEnd(34)} ${fixed(result.rate, 0).padStart(7)} ${fixed(p50 / 1000, 3).padStart(7)} ` +
      `${fixed(p99 / 1000, 3).padStart(7)} ${String(result.lost).padStart(6)} ${String(result.duplicates).padStart(6)}`,
  );
  out("\nPublisher webhook targets");
  const verdict = (text: string, met: boolean) => out(`  ${text}: ${met ? "met" : "NOT met"}`);
  verdict(
    `p99 from state change to delivery ${fixed(p99 / 1000, 3)} s (target ≤ ${TARGET_P99_MS / 1000} s)${note}`,
    p99 <= TARGET_P99_MS,
  );
  verdict(
    `events lost: ${result.lost} of ${result.events}${result.unfinished ? " (targets left unsettled)" : ""} (target 0)`,
    result.lost === 0,
  );
  verdict(`deliveries beyond the first per event: ${result.duplicates} (target 0)`, result.duplicates === 0);
}

type EventsAlone = {
  written: number;
  received: number;
  duplicates: number;
  latencies: number[];
  rate: number;
};

/**
 * The delivery path alone at a full run's event rate, whatever publishing reached on the machine:
 * what is still due of the publishing phase is canceled, then `target.published` events of the
 * bench's posts are written straight to the outbox (as a settlement writes them, in transactions
 * every 100 ms) at {@link EVENTS_ALONE_PER_SECOND} for `SPREAD_SECONDS`, and delivered by the same
 * worker processes. Measured as the publishing phase is.
 */
async function deliverEventsAlone(db: Database, accountId: string, receipts: Receipts): Promise<EventsAlone> {
  await db.query("UPDATE publisher.post_targets SET status = 'canceled' WHERE status = 'scheduled'");
  const ids: string[] = [];
  const started = Date.now();
  const total = Math.round(EVENTS_ALONE_PER_SECOND * SPREAD_SECONDS);
  while (ids.length < total) {
    const due = Math.min(total, Math.round(((Date.now() - started) / 1000) * EVENTS_ALONE_PER_SECOND));
    const batch = Array.from({ length: due - ids.length }, (_, index) => {
      const n = (ids.length + index) % TARGETS;
      return {
        accountId,
        type: "target.published" as const,
        postId: `post_hook${n}`,
        data: { postId: `post_hook${n}`, platform: "bluesky", platformPostId: `at://bench/${n}`, url: null },
      };
    });
    if (batch.length > 0) ids.push(...(await db.transaction((tx) => appendEvents(tx, batch, new Date()))));
    await sleep(100);
  }
  const written = await db.query<{ id: string; at: Date }>(
    "SELECT id, occurred_at AS at FROM publisher.events WHERE id = ANY($1::text[])",
    [ids],
  );
  const drainUntil = Date.now() + DRAIN_MS;
  while (written.some((event) => !receipts.has(event.id)) && Date.now() < drainUntil) await sleep(250);
  await sleep(2000);
  const latencies: number[] = [];
  let duplicates = 0;
  let lastReceipt = 0;
  for (const event of written) {
    const receipt = receipts.get(event.id);
    if (!receipt) continue;
    latencies.push(receipt.firstAt - event.at.getTime());
    lastReceipt = Math.max(lastReceipt, receipt.firstAt);
    duplicates += receipt.count - 1;
  }
  const first = Math.min(...written.map((event) => event.at.getTime()));
  return {
    written: written.length,
    received: latencies.length,
    duplicates,
    latencies,
    rate: latencies.length / ((lastReceipt - first) / 1000),
  };
}

function printEventsAlone(result: EventsAlone): void {
  const p50 = percentile(result.latencies, 0.5);
  const p99 = percentile(result.latencies, 0.99);
  const lost = result.written - result.received;
  out(
    `\nPublisher webhooks, the delivery path alone: ${result.written} events written to the outbox at ` +
      `${EVENTS_ALONE_PER_SECOND}/s (a full run's rate) over ${SPREAD_SECONDS} s, delivered by the same 2 workers`,
  );
  out(
    `  ${"case".padEnd(34)} ${"per s".padStart(7)} ${"p50 s".padStart(7)} ${"p99 s".padStart(7)} ${"lost".padStart(6)} ${"twice".padStart(6)}`,
  );
  out(
    `  ${"events delivered".padEnd(34)} ${fixed(result.rate, 0).padStart(7)} ${fixed(p50 / 1000, 3).padStart(7)} ` +
      `${fixed(p99 / 1000, 3).padStart(7)} ${String(lost).padStart(6)} ${String(result.duplicates).padStart(6)}`,
  );
  const verdict = (text: string, met: boolean) => out(`  ${text}: ${met ? "met" : "NOT met"}`);
  verdict(
    `p99 from the event's write to delivery ${fixed(p99 / 1000, 3)} s (target ≤ ${TARGET_P99_MS / 1000} s)`,
    p99 <= TARGET_P99_MS,
  );
  verdict(`events lost: ${lost} of ${result.written} (target 0)`, lost === 0);
  verdict(`deliveries beyond the first per event: ${result.duplicates} (target 0)`, result.duplicates === 0);
}

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Database, openPostgres } from "@app/db";
import { describe, expect, inject, it } from "vitest";
import { createAccount } from "../../src/store/accounts.ts";
import { appendEvents } from "../../src/store/events.ts";
import { createEndpoint } from "../../src/webhooks/endpoint-store.ts";
import {
  type Receiver,
  startReceiver,
  testWebhookSealer,
  WEBHOOK_TEST_TOKEN_SECRET,
} from "../webhooks-support.ts";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const WORKER = fileURLToPath(new URL("../../src/worker.ts", import.meta.url));
const TRANSACTIONS = 40;
const EVENTS_PER_TRANSACTION = 5;
const EVENTS = TRANSACTIONS * EVENTS_PER_TRANSACTION;

async function waitFor(check: () => Promise<boolean>, what: () => string, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Several processes on one database server: PostgreSQL only (`*.postgres.test.ts` run in the
 * suite's PostgreSQL pass).
 */
describe("two worker processes on one PostgreSQL", () => {
  // Worker processes start with tsx: minutes under load, not the default 30 s.
  it("deliver each event to each endpoint once from one outbox row, each attempt recorded once", {
    timeout: 180_000,
  }, async () => {
    const source = inject("testDatabase");
    if (source.kind !== "postgres") throw new Error("run with TEST_DATABASE_URL: this file needs PostgreSQL");
    const name = `publisher_webhooks_${randomBytes(4).toString("hex")}`;
    const admin = await openPostgres(source.adminUrl, { maxConnections: 1 });
    await admin.exec(`CREATE DATABASE ${name} TEMPLATE ${source.template}`);
    const url = new URL(source.adminUrl);
    url.pathname = `/${name}`;
    const db: Database = await openPostgres(url.toString());
    const dataDir = await mkdtemp(join(tmpdir(), "publisher-webhook-workers-"));
    const receivers: Receiver[] = [await startReceiver(), await startReceiver()];
    const children: (ChildProcess & { output: string[] })[] = [];
    const startWorker = (id: string) => {
      const inherited = Object.fromEntries(
        Object.entries(process.env).filter(([variable]) => !variable.startsWith("PUBLISHER_")),
      );
      const child = spawn(process.execPath, ["--import", "tsx", WORKER], {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...inherited,
          DATABASE_URL: url.toString(),
          DATA_DIR: dataDir,
          LOG_LEVEL: "info",
          PUBLISHER_TOKEN_SECRET: WEBHOOK_TEST_TOKEN_SECRET,
          PUBLISHER_PUBLIC_URL: "http://127.0.0.1:3999",
          PUBLISHER_STORAGE_DIR: join(dataDir, "media"),
          PUBLISHER_WORKER_ID: id,
          PUBLISHER_WEBHOOK_ALLOW_PRIVATE: "true",
          PUBLISHER_WEBHOOK_POLL_MS: "50",
          PUBLISHER_WEBHOOK_CONCURRENCY: "4",
        },
      }) as ChildProcess & { output: string[] };
      child.output = [];
      child.stdout?.on("data", (chunk: Buffer) => child.output.push(chunk.toString()));
      child.stderr?.on("data", (chunk: Buffer) => child.output.push(chunk.toString()));
      children.push(child);
      return child;
    };
    const outputs = () => children.map((child) => child.output.join("")).join(" | ");
    try {
      const account = await createAccount(db, { name: "Webhook owner" });
      const sealer = testWebhookSealer();
      const now = new Date();
      for (const receiver of receivers) {
        await createEndpoint(db, sealer, { accountId: account.id, url: receiver.url }, now);
      }
      const workers = [startWorker("webhook-worker-one"), startWorker("webhook-worker-two")];
      await waitFor(
        async () => workers.every((child) => child.output.join("").includes("publisher workers running")),
        () => `both workers to start (${outputs()})`,
        90_000,
      );
      // Events written by concurrent transactions while both workers poll, as state changes would.
      await Promise.all(
        Array.from({ length: TRANSACTIONS }, (_, batch) =>
          db.transaction((tx) =>
            appendEvents(
              tx,
              Array.from({ length: EVENTS_PER_TRANSACTION }, (_, index) => ({
                accountId: account.id,
                type: "target.published" as const,
                data: { batch, index },
              })),
              new Date(),
            ),
          ),
        ),
      );
      await waitFor(
        async () => receivers.every((receiver) => receiver.received.length >= EVENTS),
        () => `every event at both receivers (${receivers.map((r) => r.received.length)}; ${outputs()})`,
        90_000,
      );
      // A moment for any duplicate to show.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await Promise.all(
        workers.map(
          (child) =>
            new Promise<void>((resolve) => {
              child.once("exit", () => resolve());
              child.kill("SIGTERM");
            }),
        ),
      );

      const [events] = await db.query<{ ids: string[] }>(
        "SELECT array_agg(id ORDER BY id) AS ids FROM publisher.events WHERE account_id = $1",
        [account.id],
      );
      expect(events?.ids).toHaveLength(EVENTS);
      for (const receiver of receivers) {
        const ids = receiver.received.map((request) => request.headers["webhook-id"]);
        expect(ids).toHaveLength(EVENTS);
        expect([...new Set(ids)].sort()).toEqual(events?.ids);
      }
      const [deliveries] = await db.query<{ n: number; delivered: number; attempts: number }>(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'delivered')::int AS delivered,
           sum(attempts)::int AS attempts FROM publisher.webhook_deliveries`,
      );
      expect(deliveries).toEqual({ n: 2 * EVENTS, delivered: 2 * EVENTS, attempts: 2 * EVENTS });
      const attempts = await db.query<{ worker: string; n: number; finished: number; ok: number }>(
        `SELECT worker_id AS worker, count(*)::int AS n, count(finished_at)::int AS finished,
           count(*) FILTER (WHERE response_status = 200)::int AS ok
         FROM publisher.webhook_attempts GROUP BY worker_id ORDER BY worker_id`,
      );
      expect(attempts.map((row) => row.worker)).toEqual(["webhook-worker-one", "webhook-worker-two"]);
      expect(attempts.reduce((sum, row) => sum + row.n, 0)).toBe(2 * EVENTS);
      for (const row of attempts) expect(row.finished).toBe(row.n);
      for (const row of attempts) expect(row.ok).toBe(row.n);
    } finally {
      for (const child of children) child.kill("SIGKILL");
      await Promise.all(receivers.map((receiver) => receiver.kill()));
      await db.close();
      await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

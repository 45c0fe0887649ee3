import type { Database } from "@app/db";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { createGuardedSender } from "../../src/webhooks/guarded-post.ts";
import { call, seedAccount } from "../support.ts";
import {
  drain,
  type Received,
  type Receiver,
  recordEvent,
  startReceiver,
  testWorker,
  verifyAt,
  webhookApp,
} from "../webhooks-support.ts";

const EVENTS = 30;

async function pendingDueAt(db: Database): Promise<Date | undefined> {
  const [row] = await db.query<{ at: Date | null }>(
    "SELECT min(next_attempt_at) AS at FROM publisher.webhook_deliveries WHERE status = 'pending'",
  );
  return row?.at ?? undefined;
}

describe("a webhook receiver killed mid-stream and restarted", () => {
  test("gets every event, each with one stable id and a valid signature however often it was sent", async ({
    db,
  }) => {
    let restarted: Receiver | undefined;
    let killing: Promise<void> | undefined;
    // Answers ten, then dies while reading the eleventh (its connection cut, no answer), listening no more.
    const first: Receiver = await startReceiver((_request, index) => {
      if (index < 10) return { status: 200 };
      killing ??= first.kill();
      return "drop";
    });
    try {
      const { key, accountId } = await seedAccount(db);
      const { app, clock } = webhookApp(db, { now: new Date().toISOString() });
      const created = await json(await call(app, "POST", "/api/v1/webhooks", key, { url: first.url }));
      const secret: string = created.secret;
      const worker = testWorker(db, { sender: createGuardedSender({ allowPrivate: true }), clock });
      const ids: string[] = [];
      for (let index = 0; index < EVENTS; index += 1) {
        ids.push(await recordEvent(db, accountId, clock.now(), "target.published", { index }));
      }
      await drain(db, worker);
      await killing;
      expect(first.received.length).toBeGreaterThanOrEqual(11);
      const [{ delivered } = { delivered: 0 }] = await db.query<{ delivered: number }>(
        "SELECT count(*)::int AS delivered FROM publisher.webhook_deliveries WHERE status = 'delivered'",
      );
      expect(delivered).toBe(10);

      restarted = await startReceiver(undefined, { port: first.port });
      for (let due = await pendingDueAt(db); due; due = await pendingDueAt(db)) {
        clock.set(due.toISOString());
        await drain(db, worker);
      }

      const all: Received[] = [...first.received, ...restarted.received];
      const byId = Map.groupBy(all, (request) => request.headers["webhook-id"] ?? "");
      expect([...byId.keys()].sort()).toEqual([...ids].sort());
      for (const request of all) {
        const sentAt = new Date(Number(request.headers["webhook-timestamp"]) * 1000);
        expect(verifyAt(secret, request.body, request.headers, sentAt)).toMatchObject({
          type: "target.published",
        });
      }
      for (const [id, requests] of byId) {
        expect(new Set(requests.map((request) => request.body)).size, id).toBe(1);
      }
      // The one cut off mid-request reached the receiver twice, under the same id.
      expect([...byId.values()].some((requests) => requests.length === 2)).toBe(true);
      const [counts] = await db.query<{ delivered: number; attempts: number }>(
        `SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered, sum(attempts)::int AS attempts
         FROM publisher.webhook_deliveries`,
      );
      expect(counts?.delivered).toBe(EVENTS);
      const [logged] = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM publisher.webhook_attempts",
      );
      expect(logged?.n).toBe(counts?.attempts);
    } finally {
      await Promise.all([restarted?.kill(), first.kill().catch(() => undefined)]);
    }
  });
});

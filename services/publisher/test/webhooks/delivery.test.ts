import type { Database } from "@app/db";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { claimDueDeliveries } from "../../src/webhooks/delivery-store.ts";
import { createFakeSender, type FakeAnswer } from "../../src/webhooks/sender.fake.ts";
import type { WebhookRequest } from "../../src/webhooks/sender.ts";
import { call, seedAccount } from "../support.ts";
import { drain, fanOutAll, recordEvent, testWorker, webhookApp } from "../webhooks-support.ts";

const SECOND = 1_000;
const HOUR = 3_600 * SECOND;

async function setup(db: Database, answer?: (request: WebhookRequest) => FakeAnswer) {
  // The file's tests share a database: each starts with no endpoint (and so no delivery) left.
  await db.query("DELETE FROM publisher.webhook_endpoints");
  const account = await seedAccount(db);
  const { app, clock } = webhookApp(db, { now: "2026-06-15T06:00:00Z" });
  const sender = createFakeSender(answer);
  const worker = testWorker(db, { sender, clock });
  const subscribe = async (body: Record<string, unknown> = {}) => {
    const res = await call(app, "POST", "/api/v1/webhooks", account.key, {
      url: "https://hooks.example.com/publisher",
      ...body,
    });
    expect(res.status).toBe(201);
    return (await json(res)).webhook.id as string;
  };
  return { ...account, app, clock, sender, worker, subscribe };
}

/** Moves the clock to when the earliest pending delivery is due; false when none is pending. */
async function toNextDue(db: Database, clock: { set(iso: string): void }): Promise<boolean> {
  const [row] = await db.query<{ at: Date | null }>(
    "SELECT min(next_attempt_at) AS at FROM publisher.webhook_deliveries WHERE status = 'pending'",
  );
  if (!row?.at) return false;
  clock.set(row.at.toISOString());
  return true;
}

describe("webhook fan-out", () => {
  test("each event goes once to each endpoint subscribed to its type, from when the endpoint exists", async ({
    db,
  }) => {
    const { accountId, clock, sender, worker, subscribe } = await setup(db);
    const early = await recordEvent(db, accountId, clock.now());
    clock.advance(SECOND);
    const all = await subscribe();
    const failures = await subscribe({ eventTypes: ["target.failed"] });
    const other = await seedAccount(db);
    clock.advance(SECOND);
    const published = await recordEvent(db, accountId, clock.now(), "post.published");
    const failed = await recordEvent(db, accountId, clock.now(), "target.failed", { targetId: "tgt_1" });
    await recordEvent(db, other.accountId, clock.now(), "post.published");
    await drain(db, worker);
    await worker.fanOut();
    await drain(db, worker);
    const deliveries = await db.query<{ endpoint: string; event: string }>(
      "SELECT endpoint_id AS endpoint, event_id AS event FROM publisher.webhook_deliveries ORDER BY endpoint_id, event_id",
    );
    expect(deliveries).toHaveLength(3);
    expect(
      deliveries
        .filter((row) => row.endpoint === all)
        .map((row) => row.event)
        .sort(),
    ).toEqual([published, failed].sort());
    expect(deliveries.filter((row) => row.endpoint === failures).map((row) => row.event)).toEqual([failed]);
    expect(deliveries.map((row) => row.event)).not.toContain(early);
    expect(sender.sent).toHaveLength(3);
  });

  test("a turned-off endpoint gets nothing; turned on, it gets what happens from then on", async ({ db }) => {
    const { accountId, app, key, clock, sender, worker, subscribe } = await setup(db);
    const id = await subscribe({ enabled: false });
    await recordEvent(db, accountId, clock.now());
    await drain(db, worker);
    expect(sender.sent).toHaveLength(0);
    await call(app, "PATCH", `/api/v1/webhooks/${id}`, key, { enabled: true });
    clock.advance(SECOND);
    const later = await recordEvent(db, accountId, clock.now());
    await drain(db, worker);
    expect(sender.sent.map((sent) => sent.headers["webhook-id"])).toEqual([later]);
  });
});

describe("webhook retries", () => {
  test("a failing receiver is tried again on the schedule, with one webhook-id, each attempt recorded once", async ({
    db,
  }) => {
    let calls = 0;
    const { accountId, app, key, clock, sender, worker, subscribe } = await setup(db, () => {
      calls += 1;
      return calls <= 3 ? { status: 500, body: "try later" } : { status: 204 };
    });
    const id = await subscribe();
    const eventId = await recordEvent(db, accountId, clock.now());
    const start = clock.now().getTime();
    await drain(db, worker);
    const times: number[] = [0];
    while (await toNextDue(db, clock)) {
      // Not a moment early: a millisecond before its time, nothing is due.
      clock.advance(-1);
      expect(await worker.deliverDue()).toEqual([]);
      clock.advance(1);
      times.push(clock.now().getTime() - start);
      await drain(db, worker);
    }
    expect(times).toEqual([0, 10 * SECOND, 50 * SECOND, 210 * SECOND]);
    expect(new Set(sender.sent.map((sent) => sent.headers["webhook-id"]))).toEqual(new Set([eventId]));
    const page = await json(await call(app, "GET", `/api/v1/webhooks/${id}/deliveries`, key));
    const [delivery] = page.deliveries;
    expect(delivery).toMatchObject({
      eventId,
      eventType: "post.published",
      status: "delivered",
      attempts: 4,
    });
    expect(delivery.attemptLog.map((attempt: { number: number }) => attempt.number)).toEqual([4, 3, 2, 1]);
    expect(delivery.attemptLog.map((attempt: { responseStatus: number }) => attempt.responseStatus)).toEqual([
      204, 500, 500, 500,
    ]);
    expect(delivery.attemptLog[3]).toMatchObject({
      responseExcerpt: "try later",
      error: "The receiver answered 500.",
      retryAt: new Date(start + 10 * SECOND).toISOString(),
    });
    const [counts] = await db.query<{ n: number; distinct: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT (delivery_id, number))::int AS distinct FROM publisher.webhook_attempts",
    );
    expect(counts).toEqual({ n: 4, distinct: 4 });
  });

  test("the receiver's Retry-After sets the next attempt, in seconds or as a date, bounded to 8 hours", async ({
    db,
  }) => {
    const answers: FakeAnswer[] = [
      { status: 429, retryAfter: "120" },
      { status: 503, retryAfter: "Mon, 15 Jun 2026 07:00:00 GMT" },
      { status: 503, retryAfter: String(10 * 24 * 3600) },
      { status: 200 },
    ];
    const { accountId, clock, worker, subscribe } = await setup(db, () => answers.shift() ?? { status: 200 });
    await subscribe();
    await recordEvent(db, accountId, clock.now());
    await drain(db, worker);
    const due = async () => {
      const [row] = await db.query<{ at: Date }>(
        "SELECT next_attempt_at AS at FROM publisher.webhook_deliveries",
      );
      return row?.at.toISOString();
    };
    expect(await due()).toBe("2026-06-15T06:02:00.000Z");
    clock.set("2026-06-15T06:01:59.999Z");
    expect(await worker.deliverDue()).toEqual([]);
    clock.set("2026-06-15T06:02:00Z");
    await drain(db, worker);
    expect(await due()).toBe("2026-06-15T07:00:00.000Z");
    clock.set("2026-06-15T07:00:00Z");
    await drain(db, worker);
    expect(await due()).toBe("2026-06-15T15:00:00.000Z");
    clock.set("2026-06-15T15:00:00Z");
    await drain(db, worker);
    const [row] = await db.query<{ status: string }>("SELECT status FROM publisher.webhook_deliveries");
    expect(row?.status).toBe("delivered");
  });

  test("a delivery is given up after its tenth attempt, about 28 hours after the first", async ({ db }) => {
    const { accountId, clock, sender, worker, subscribe } = await setup(db, () => ({ error: "refused" }));
    await subscribe();
    await recordEvent(db, accountId, clock.now());
    const start = clock.now().getTime();
    await drain(db, worker);
    while (await toNextDue(db, clock)) await drain(db, worker);
    expect(sender.sent).toHaveLength(10);
    expect((clock.now().getTime() - start) / HOUR).toBeCloseTo(27.79, 1);
    const [row] = await db.query<{ status: string; attempts: number }>(
      "SELECT status, attempts FROM publisher.webhook_deliveries",
    );
    expect(row).toEqual({ status: "failed", attempts: 10 });
  });
});

describe("a worker that dies mid-attempt", () => {
  test("leaves its delivery to another once the lease ends: sent again under the same id, both attempts kept", async ({
    db,
  }) => {
    const { accountId, app, key, clock, sender, worker, subscribe } = await setup(db);
    const id = await subscribe();
    const eventId = await recordEvent(db, accountId, clock.now());
    await fanOutAll(db, worker);
    // A worker claims it and dies before its attempt is answered.
    const [held] = await claimDueDeliveries(db, {
      workerId: "dead-worker",
      now: clock.now(),
      leaseUntil: new Date(clock.now().getTime() + 60_000),
      limit: 10,
    });
    expect(held?.event.id).toBe(eventId);
    expect(await worker.deliverDue()).toEqual([]);
    clock.advance(60_000);
    await drain(db, worker);
    expect(sender.sent.map((sent) => sent.headers["webhook-id"])).toEqual([eventId]);
    const page = await json(await call(app, "GET", `/api/v1/webhooks/${id}/deliveries`, key));
    expect(page.deliveries[0]).toMatchObject({ status: "delivered", attempts: 2 });
    expect(page.deliveries[0].attemptLog).toMatchObject([
      { number: 2, responseStatus: 200, finishedAt: expect.any(String) },
      { number: 1, responseStatus: null, finishedAt: null },
    ]);
  });
});

describe("an endpoint failing persistently", () => {
  test("is turned off after 5 days of failures and its owner is told with webhook.endpoint_disabled", async ({
    db,
  }) => {
    const { accountId, app, key, clock, sender, worker, subscribe } = await setup(db, (request) =>
      request.url.includes("broken") ? { status: 503 } : { status: 200 },
    );
    const broken = await subscribe({ url: "https://broken.example.com/hook" });
    await subscribe({ eventTypes: ["webhook.endpoint_disabled"] });
    const start = clock.now().getTime();
    await recordEvent(db, accountId, clock.now());
    await drain(db, worker);
    while (await toNextDue(db, clock)) await drain(db, worker);
    // A whole schedule failed (28 hours): not yet 5 days.
    let shown = await json(await call(app, "GET", `/api/v1/webhooks/${broken}`, key));
    expect(shown.webhook).toMatchObject({ enabled: true, consecutiveFailures: 10 });
    clock.set(new Date(start + 5 * 24 * HOUR).toISOString());
    await recordEvent(db, accountId, clock.now());
    await drain(db, worker);
    shown = await json(await call(app, "GET", `/api/v1/webhooks/${broken}`, key));
    expect(shown.webhook).toMatchObject({
      enabled: false,
      disabledReason: "failing",
      consecutiveFailures: 11,
      failingSince: new Date(start).toISOString(),
    });
    const [disabled] = await db.query<{ id: string; data: Record<string, unknown> }>(
      "SELECT id, data FROM publisher.events WHERE account_id = $1 AND type = 'webhook.endpoint_disabled'",
      [accountId],
    );
    expect(disabled?.data).toMatchObject({ endpointId: broken, reason: "failing", consecutiveFailures: 11 });
    await drain(db, worker);
    const told = sender.sent.filter((sent) => sent.url.includes("hooks.example.com"));
    expect(told.map((sent) => sent.headers["webhook-id"])).toEqual([disabled?.id]);
    expect(JSON.parse(told[0]?.body ?? "{}")).toMatchObject({ type: "webhook.endpoint_disabled" });
    // Turned off, it is sent nothing more; turned on again, its streak starts over.
    const sentToBroken = () => sender.sent.filter((sent) => sent.url.includes("broken")).length;
    expect(sentToBroken()).toBe(11);
    clock.advance(HOUR);
    await recordEvent(db, accountId, clock.now());
    await drain(db, worker);
    expect(sentToBroken()).toBe(11);
    const enabled = await json(
      await call(app, "PATCH", `/api/v1/webhooks/${broken}`, key, { enabled: true }),
    );
    expect(enabled.webhook).toMatchObject({
      enabled: true,
      disabledReason: null,
      consecutiveFailures: 0,
      failingSince: null,
    });
  });
});

describe("what an attempt records", () => {
  test("the answer's excerpt is bounded, and anything secret in it is taken out", async ({ db }) => {
    const { accountId, app, key, clock, worker, subscribe } = await setup(db, (request) => ({
      status: 400,
      body: `echo ${request.headers["webhook-signature"]} whsec_c2VjcmV0c2VjcmV0 ${"x".repeat(2_000)}`,
    }));
    const id = await subscribe();
    await recordEvent(db, accountId, clock.now());
    await drain(db, worker);
    const page = await json(await call(app, "GET", `/api/v1/webhooks/${id}/deliveries`, key));
    const [attempt] = page.deliveries[0].attemptLog;
    expect(attempt.responseStatus).toBe(400);
    expect(attempt.responseExcerpt).toMatch(/^echo v1,\[redacted\] \[redacted\] x+$/);
    expect(attempt.responseExcerpt.length).toBe(500);
  });
});

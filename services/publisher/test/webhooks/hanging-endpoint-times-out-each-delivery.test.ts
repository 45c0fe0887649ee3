import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { DEFAULT_WEBHOOK_RETRY, endpointPauseMs } from "../../src/webhooks/retry-schedule.ts";
import { createFakeSender, type FakeAnswer } from "../../src/webhooks/sender.fake.ts";
import { call, seedAccount } from "../support.ts";
import { drain, recordEvent, testWorker, webhookApp } from "../webhooks-support.ts";

const EVENTS = 30;
const TIMEOUT: FakeAnswer = { error: "No answer within 15000 ms.", timedOut: true };

/**
 * Audit of issue 18, finding 2: an endpoint whose receiver never answers held a slot for the whole
 * time limit once per delivery, however many had timed out before. After a few timeouts in a row
 * the endpoint is now paused as a whole (its due deliveries wait, their attempts unspent), for a
 * backoff that grows while it keeps timing out; an answer ends the pause.
 */
describe("a hanging endpoint timing out each delivery on its own", () => {
  test("after a few timeouts in a row the endpoint is paused; its other deliveries wait, then go", {
    timeout: 60_000,
  }, async ({ db }) => {
    await db.query("DELETE FROM publisher.webhook_endpoints");
    const owner = await seedAccount(db);
    const { app, clock } = webhookApp(db, { now: "2026-06-15T06:00:00Z" });
    let answer: FakeAnswer = TIMEOUT;
    const sender = createFakeSender(() => answer);
    const worker = testWorker(db, { sender, clock });
    const created = await call(app, "POST", "/api/v1/webhooks", owner.key, {
      url: "https://hooks.example.com/p",
    });
    expect(created.status).toBe(201);
    for (let index = 0; index < EVENTS; index += 1) await recordEvent(db, owner.accountId, clock.now());

    await drain(db, worker);
    const threshold = DEFAULT_WEBHOOK_RETRY.pauseAfterTimeouts;
    // Sent one claim's worth at most (drain claims 50 slots, of which one account holds half),
    // not once per delivery: past the threshold the endpoint is paused and the rest wait.
    expect(sender.sent.length).toBeGreaterThanOrEqual(threshold);
    expect(sender.sent.length).toBeLessThanOrEqual(25);
    expect(sender.sent.length).toBeLessThan(EVENTS);
    const [endpoint] = await db.query<{ pausedUntil: Date | null; timeouts: number }>(
      `SELECT paused_until AS "pausedUntil", consecutive_timeouts AS timeouts FROM publisher.webhook_endpoints`,
    );
    expect(endpoint?.timeouts).toBe(sender.sent.length);
    const pause = endpointPauseMs(DEFAULT_WEBHOOK_RETRY, sender.sent.length) ?? 0;
    expect(endpoint?.pausedUntil?.getTime()).toBe(clock.now().getTime() + pause);
    const [waiting] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM publisher.webhook_deliveries WHERE status = 'pending' AND attempts = 0",
    );
    expect(waiting?.n).toBe(EVENTS - sender.sent.length);

    // Still paused a moment before its end, even for deliveries due by then.
    clock.advance(pause - 1);
    expect(await worker.deliverDue()).toEqual([]);

    // The receiver is back: once the pause ends, everything goes out and the streak is over.
    clock.advance(1);
    answer = { status: 200 };
    await drain(db, worker);
    const [after] = await db.query<{ delivered: number; pausedUntil: Date | null; timeouts: number }>(
      `SELECT (SELECT count(*)::int FROM publisher.webhook_deliveries WHERE status = 'delivered') AS delivered,
         paused_until AS "pausedUntil", consecutive_timeouts AS timeouts FROM publisher.webhook_endpoints`,
    );
    expect(after).toEqual({ delivered: EVENTS, pausedUntil: null, timeouts: 0 });
  });

  test("the pause grows while the endpoint keeps timing out, up to its bound", () => {
    const policy = DEFAULT_WEBHOOK_RETRY;
    expect(endpointPauseMs(policy, policy.pauseAfterTimeouts - 1)).toBeNull();
    const first = endpointPauseMs(policy, policy.pauseAfterTimeouts) ?? 0;
    expect(first).toBe(policy.pauseBaseMs);
    expect(endpointPauseMs(policy, policy.pauseAfterTimeouts + 1)).toBe(2 * first);
    expect(endpointPauseMs(policy, policy.pauseAfterTimeouts + 100)).toBe(policy.pauseMaxMs);
  });

  test("failures with an answer, or refused at once, do not pause the endpoint", async ({ db }) => {
    await db.query("DELETE FROM publisher.webhook_endpoints");
    const owner = await seedAccount(db);
    const { app, clock } = webhookApp(db, { now: "2026-06-15T06:00:00Z" });
    let calls = 0;
    const sender = createFakeSender(() => {
      calls += 1;
      return calls % 2 === 0 ? { status: 503 } : { error: "The connection was refused (ECONNREFUSED)." };
    });
    const worker = testWorker(db, { sender, clock });
    expect(
      (await call(app, "POST", "/api/v1/webhooks", owner.key, { url: "https://hooks.example.com/p" })).status,
    ).toBe(201);
    for (let index = 0; index < EVENTS; index += 1) await recordEvent(db, owner.accountId, clock.now());
    await drain(db, worker);
    expect(sender.sent).toHaveLength(EVENTS);
    const [endpoint] = await db.query<{ pausedUntil: Date | null; timeouts: number }>(
      `SELECT paused_until AS "pausedUntil", consecutive_timeouts AS timeouts FROM publisher.webhook_endpoints`,
    );
    expect(endpoint).toEqual({ pausedUntil: null, timeouts: 0 });
  });
});

import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { createFakeSender } from "../../src/webhooks/sender.fake.ts";
import { call, seedAccount } from "../support.ts";
import { fanOutAll, recordEvent, testWorker, webhookApp } from "../webhooks-support.ts";

/**
 * `stop()` claims nothing more. Stopped while its turn was fanning out the outbox (a backlog's
 * fan-out runs batch after batch), the loop went on to claim a full batch of deliveries and send
 * them, and the stop waited for every one of them (up to the receivers' time limit).
 */
describe("the webhook worker stopped in the middle of a turn", () => {
  test("claims and sends nothing after stop(), even when stopped while fanning out", async ({ db }) => {
    await db.query("DELETE FROM publisher.webhook_endpoints");
    const owner = await seedAccount(db);
    const { app, clock } = webhookApp(db, { now: "2026-06-15T06:00:00Z" });
    const created = await call(app, "POST", "/api/v1/webhooks", owner.key, {
      url: "https://hooks.example.com/stop",
    });
    expect(created.status).toBe(201);
    clock.advance(1_000);
    await recordEvent(db, owner.accountId, clock.now());
    const sender = createFakeSender();
    const worker = testWorker(db, { sender, clock });
    await fanOutAll(db, worker);

    // The loop's first turn starts at once and is fanning out (awaiting the database) when stopped.
    const loop = worker.start({ pollIntervalMs: 50 });
    await loop.stop();

    expect(sender.sent).toHaveLength(0);
    const [pending] = await db.query<{ attempts: number; leased: boolean }>(
      `SELECT attempts, leased_until IS NOT NULL AS leased FROM publisher.webhook_deliveries`,
    );
    expect(pending).toEqual({ attempts: 0, leased: false });
  });
});

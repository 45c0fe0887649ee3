import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { claimDueDeliveries } from "../../src/webhooks/delivery-store.ts";
import { createFakeSender, type FakeAnswer } from "../../src/webhooks/sender.fake.ts";
import { call } from "../support.ts";
import { drain, recordEvent, testWorker, webhookRouteSetup } from "../webhooks-support.ts";

async function withDelivery(db: Parameters<typeof webhookRouteSetup>[0], answers: FakeAnswer[]) {
  const setup = await webhookRouteSetup(db);
  const { webhook } = await setup.create(setup.owner.key);
  const sender = createFakeSender(() => answers.shift() ?? { status: 200 });
  const worker = testWorker(db, { sender, clock: setup.clock });
  const eventId = await recordEvent(db, setup.owner.accountId, setup.clock.now());
  await drain(db, worker);
  const [delivery] = await db.query<{ id: string }>(
    "SELECT id FROM publisher.webhook_deliveries WHERE endpoint_id = $1",
    [webhook.id],
  );
  const deliveryId = delivery?.id as string;
  const state = async () =>
    (await json(await call(setup.app, "GET", `/api/v1/webhooks/${webhook.id}/deliveries`, setup.owner.key)))
      .deliveries[0];
  return {
    ...setup,
    sender,
    worker,
    eventId,
    state,
    webhookId: webhook.id,
    deliveryId,
    path: `/api/v1/webhooks/${webhook.id}/deliveries/${deliveryId}/resend`,
  };
}

describe("POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/resend: success", () => {
  test("a delivered delivery is sent once more, with the same webhook-id, and no schedule after", async ({
    db,
  }) => {
    const { app, owner, sender, worker, eventId, state, path } = await withDelivery(db, [
      { status: 200 },
      { status: 500 },
    ]);
    const res = await call(app, "POST", path, owner.key);
    expect(res.status).toBe(202);
    expect(await json(res)).toEqual({ success: true, deliveryId: expect.stringMatching(/^whd_/) });
    expect(await state()).toMatchObject({ status: "pending", attempts: 1 });
    await drain(db, worker);
    expect(sender.sent.map((sent) => sent.headers["webhook-id"])).toEqual([eventId, eventId]);
    // The resend's attempt failed: the delivery ends failed, nothing more is scheduled.
    expect(await state()).toMatchObject({ status: "failed", attempts: 2, nextAttemptAt: null });
  });

  test("a pending delivery is brought forward and keeps its schedule", async ({ db }) => {
    const { app, owner, sender, worker, state, path } = await withDelivery(db, [
      { status: 500 },
      { status: 500 },
    ]);
    expect(await state()).toMatchObject({ status: "pending", nextAttemptAt: "2026-06-15T06:00:10.000Z" });
    expect((await call(app, "POST", path, owner.key)).status).toBe(202);
    await drain(db, worker);
    expect(sender.sent).toHaveLength(2);
    expect(await state()).toMatchObject({
      status: "pending",
      attempts: 2,
      nextAttemptAt: "2026-06-15T06:00:40.000Z",
    });
  });
});

describe("POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/resend: errors", () => {
  test("an unknown delivery, or one of another endpoint, is 404 WEBHOOK_DELIVERY_NOT_FOUND", async ({
    db,
  }) => {
    const { app, owner, create, webhookId, deliveryId } = await withDelivery(db, []);
    const unknown = await call(
      app,
      "POST",
      `/api/v1/webhooks/${webhookId}/deliveries/whd_nope/resend`,
      owner.key,
    );
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toMatchObject({ error: "WEBHOOK_DELIVERY_NOT_FOUND" });
    const other = await create(owner.key);
    const crossed = await call(
      app,
      "POST",
      `/api/v1/webhooks/${other.webhook.id}/deliveries/${deliveryId}/resend`,
      owner.key,
    );
    expect(crossed.status).toBe(404);
    expect(await json(crossed)).toMatchObject({ error: "WEBHOOK_DELIVERY_NOT_FOUND" });
  });

  test("a delivery being sent now is 409 WEBHOOK_DELIVERY_IN_PROGRESS; a turned-off endpoint 409", async ({
    db,
  }) => {
    const { app, owner, clock, path, webhookId } = await withDelivery(db, [{ status: 500 }]);
    clock.advance(10_000);
    const held = await claimDueDeliveries(db, {
      workerId: "elsewhere",
      now: clock.now(),
      leaseUntil: new Date(clock.now().getTime() + 60_000),
      limit: 10,
    });
    expect(held).toHaveLength(1);
    const busy = await call(app, "POST", path, owner.key);
    expect(busy.status).toBe(409);
    expect(await json(busy)).toMatchObject({ error: "WEBHOOK_DELIVERY_IN_PROGRESS" });
    await call(app, "PATCH", `/api/v1/webhooks/${webhookId}`, owner.key, { enabled: false });
    const off = await call(app, "POST", path, owner.key);
    expect(off.status).toBe(409);
    expect(await json(off)).toMatchObject({ error: "WEBHOOK_ENDPOINT_DISABLED" });
  });
});

describe("POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/resend: security", () => {
  test("needs posts:write, and another account's endpoint is 404", async ({ db }) => {
    const { app, reader, stranger, path } = await withDelivery(db, []);
    expect((await call(app, "POST", path, undefined)).status).toBe(401);
    expect((await call(app, "POST", path, reader.key)).status).toBe(403);
    const theirs = await call(app, "POST", path, stranger.key);
    expect(theirs.status).toBe(404);
    expect(await json(theirs)).toMatchObject({ error: "WEBHOOK_NOT_FOUND" });
  });
});

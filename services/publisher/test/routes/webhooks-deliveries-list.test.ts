import { z } from "@app/core";
import { json, jsonOf, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { DeliverySchema } from "../../src/routes/webhooks-shared.ts";
import { createFakeSender } from "../../src/webhooks/sender.fake.ts";
import { call } from "../support.ts";
import { drain, recordEvent, testWorker, webhookRouteSetup } from "../webhooks-support.ts";

const Page = z.object({ deliveries: z.array(DeliverySchema), nextCursor: z.string().nullable() });

async function withDeliveries(db: Parameters<typeof webhookRouteSetup>[0]) {
  const setup = await webhookRouteSetup(db);
  const { webhook } = await setup.create(setup.owner.key);
  const ids: string[] = [];
  let calls = 0;
  const worker = testWorker(db, {
    // The second event's first attempt fails; everything else is answered 200.
    sender: createFakeSender(() =>
      ++calls === 2 ? { status: 502, body: "bad gateway" } : { status: 200, body: "ok" },
    ),
    clock: setup.clock,
  });
  for (let index = 0; index < 3; index += 1) {
    setup.clock.advance(1_000);
    ids.push(await recordEvent(db, setup.owner.accountId, setup.clock.now(), "target.published", { index }));
    await drain(db, worker);
  }
  return {
    ...setup,
    webhookId: webhook.id,
    eventIds: ids,
    path: `/api/v1/webhooks/${webhook.id}/deliveries`,
  };
}

describe("GET /api/v1/webhooks/{id}/deliveries: success", () => {
  test("lists deliveries newest first with their attempts, by status, a page at a time", async ({ db }) => {
    const { app, owner, eventIds, path } = await withDeliveries(db);
    const res = await call(app, "GET", path, owner.key);
    expect(res.status).toBe(200);
    const page = await jsonOf(res, Page);
    expect(page.nextCursor).toBeNull();
    expect(page.deliveries.map((delivery) => delivery.eventId)).toEqual([...eventIds].reverse());
    const failing = page.deliveries[1];
    expect(failing).toMatchObject({
      eventType: "target.published",
      status: "pending",
      attempts: 1,
      lastResponseStatus: 502,
      lastError: "The receiver answered 502.",
      nextAttemptAt: "2026-06-15T06:00:12.000Z",
      deliveredAt: null,
    });
    expect(failing?.attemptLog).toEqual([
      {
        number: 1,
        startedAt: "2026-06-15T06:00:02.000Z",
        finishedAt: "2026-06-15T06:00:02.000Z",
        responseStatus: 502,
        latencyMs: 1,
        responseExcerpt: "bad gateway",
        error: "The receiver answered 502.",
        retryAt: "2026-06-15T06:00:12.000Z",
      },
    ]);
    expect(page.deliveries[0]).toMatchObject({
      status: "delivered",
      nextAttemptAt: null,
      deliveredAt: expect.any(String),
    });

    const pending = await json(await call(app, "GET", `${path}?status=pending`, owner.key));
    expect(pending.deliveries.map((delivery: { eventId: string }) => delivery.eventId)).toEqual([
      eventIds[1],
    ]);
    const first = await json(await call(app, "GET", `${path}?limit=2`, owner.key));
    expect(first.deliveries).toHaveLength(2);
    const rest = await json(await call(app, "GET", `${path}?limit=2&cursor=${first.nextCursor}`, owner.key));
    expect(rest.deliveries.map((delivery: { eventId: string }) => delivery.eventId)).toEqual([eventIds[0]]);
    expect(rest.nextCursor).toBeNull();
  });
});

describe("GET /api/v1/webhooks/{id}/deliveries: errors", () => {
  test("a bad limit, status or cursor is 400; an unknown endpoint is 404", async ({ db }) => {
    const { app, owner, path } = await withDeliveries(db);
    for (const query of ["limit=0", "limit=101", "limit=x", "status=lost", "cursor=bm9wZQ"]) {
      const res = await call(app, "GET", `${path}?${query}`, owner.key);
      expect(res.status, query).toBe(400);
      expect(await json(res)).toMatchObject({ error: "VALIDATION_FAILED" });
    }
    const missing = await call(app, "GET", "/api/v1/webhooks/wh_nope/deliveries", owner.key);
    expect(missing.status).toBe(404);
    expect(await json(missing)).toMatchObject({ error: "WEBHOOK_NOT_FOUND" });
  });
});

describe("GET /api/v1/webhooks/{id}/deliveries: security", () => {
  test("needs posts:read, and another account's endpoint is 404", async ({ db }) => {
    const { app, reader, uploader, stranger, path } = await withDeliveries(db);
    expect((await call(app, "GET", path, undefined)).status).toBe(401);
    expect((await call(app, "GET", path, uploader.key)).status).toBe(403);
    expect((await call(app, "GET", path, reader.key)).status).toBe(404);
    expect((await call(app, "GET", path, stranger.key)).status).toBe(404);
  });
});

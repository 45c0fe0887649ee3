import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { createFakeSender } from "../../src/webhooks/sender.fake.ts";
import { call } from "../support.ts";
import { drain, recordEvent, testWorker, webhookRouteSetup } from "../webhooks-support.ts";

describe("DELETE /api/v1/webhooks/{id}: success", () => {
  test("removes the endpoint with its deliveries and their attempts", async ({ db }) => {
    const { app, clock, owner, create } = await webhookRouteSetup(db);
    const { webhook } = await create(owner.key);
    await recordEvent(db, owner.accountId, clock.now());
    await drain(db, testWorker(db, { sender: createFakeSender(() => ({ status: 500 })), clock }));
    const res = await call(app, "DELETE", `/api/v1/webhooks/${webhook.id}`, owner.key);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true });
    expect((await call(app, "GET", `/api/v1/webhooks/${webhook.id}`, owner.key)).status).toBe(404);
    const [left] = await db.query<{ deliveries: number; attempts: number }>(
      `SELECT (SELECT count(*)::int FROM publisher.webhook_deliveries WHERE endpoint_id = $1) AS deliveries,
         (SELECT count(*)::int FROM publisher.webhook_attempts a
          WHERE NOT EXISTS (SELECT 1 FROM publisher.webhook_deliveries d WHERE d.id = a.delivery_id)) AS attempts`,
      [webhook.id],
    );
    expect(left).toEqual({ deliveries: 0, attempts: 0 });
  });
});

describe("DELETE /api/v1/webhooks/{id}: errors", () => {
  test("an unknown or already deleted endpoint is 404", async ({ db }) => {
    const { app, owner, create } = await webhookRouteSetup(db);
    const { webhook } = await create(owner.key);
    expect((await call(app, "DELETE", `/api/v1/webhooks/${webhook.id}`, owner.key)).status).toBe(200);
    const again = await call(app, "DELETE", `/api/v1/webhooks/${webhook.id}`, owner.key);
    expect(again.status).toBe(404);
    expect(await json(again)).toMatchObject({ error: "WEBHOOK_NOT_FOUND" });
  });
});

describe("DELETE /api/v1/webhooks/{id}: security", () => {
  test("needs posts:write, and another account's endpoint is 404 and stays", async ({ db }) => {
    const { app, owner, reader, stranger, create } = await webhookRouteSetup(db);
    const { webhook } = await create(owner.key);
    const path = `/api/v1/webhooks/${webhook.id}`;
    expect((await call(app, "DELETE", path, undefined)).status).toBe(401);
    expect((await call(app, "DELETE", path, reader.key)).status).toBe(403);
    expect((await call(app, "DELETE", path, stranger.key)).status).toBe(404);
    expect((await call(app, "GET", path, owner.key)).status).toBe(200);
  });
});

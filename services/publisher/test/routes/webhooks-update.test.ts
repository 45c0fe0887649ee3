import { z } from "@app/core";
import { json, jsonOf, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { WebhookSchema } from "../../src/routes/webhooks-shared.ts";
import { call } from "../support.ts";
import { webhookRouteSetup } from "../webhooks-support.ts";

describe("PATCH /api/v1/webhooks/{id}: success", () => {
  test("changes the URL, event types and description, and turns the endpoint off and on", async ({ db }) => {
    const { app, clock, owner, create } = await webhookRouteSetup(db);
    const { webhook } = await create(owner.key, { description: "old" });
    const path = `/api/v1/webhooks/${webhook.id}`;
    clock.advance(60_000);
    const changed = await call(app, "PATCH", path, owner.key, {
      url: "https://new.example.com/h",
      eventTypes: ["target.published"],
      description: null,
    });
    expect(changed.status).toBe(200);
    expect((await jsonOf(changed, z.object({ webhook: WebhookSchema }))).webhook).toMatchObject({
      url: "https://new.example.com/h",
      eventTypes: ["target.published"],
      description: null,
      enabled: true,
      updatedAt: "2026-06-15T06:01:00.000Z",
    });
    const off = await json(await call(app, "PATCH", path, owner.key, { enabled: false }));
    expect(off.webhook).toMatchObject({
      enabled: false,
      disabledReason: "owner",
      url: "https://new.example.com/h",
    });
    const on = await json(await call(app, "PATCH", path, owner.key, { enabled: true, eventTypes: null }));
    expect(on.webhook).toMatchObject({ enabled: true, disabledReason: null, eventTypes: null });
  });
});

describe("PATCH /api/v1/webhooks/{id}: errors", () => {
  test("an empty change, a bad URL or an unknown event type is 400; an unknown id is 404", async ({ db }) => {
    const { app, owner, create } = await webhookRouteSetup(db);
    const { webhook } = await create(owner.key);
    const path = `/api/v1/webhooks/${webhook.id}`;
    for (const body of [{}, { url: "ftp://x.example.com" }, { eventTypes: ["nope"] }, { enabled: null }]) {
      const res = await call(app, "PATCH", path, owner.key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await json(res)).toMatchObject({ error: "VALIDATION_FAILED" });
    }
    const missing = await call(app, "PATCH", "/api/v1/webhooks/wh_nope", owner.key, { enabled: false });
    expect(missing.status).toBe(404);
    expect(await json(missing)).toMatchObject({ error: "WEBHOOK_NOT_FOUND" });
  });
});

describe("PATCH /api/v1/webhooks/{id}: security", () => {
  test("needs posts:write, and another account's endpoint is 404 and stays as it was", async ({ db }) => {
    const { app, owner, reader, stranger, create } = await webhookRouteSetup(db);
    const { webhook } = await create(owner.key);
    const path = `/api/v1/webhooks/${webhook.id}`;
    const change = { url: "https://attacker.example.com/h" };
    expect((await call(app, "PATCH", path, undefined, change)).status).toBe(401);
    expect((await call(app, "PATCH", path, reader.key, change)).status).toBe(403);
    expect((await call(app, "PATCH", path, stranger.key, change)).status).toBe(404);
    const shown = await json(await call(app, "GET", path, owner.key));
    expect(shown.webhook.url).toBe(webhook.url);
  });
});

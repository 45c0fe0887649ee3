import { z } from "@app/core";
import { json, jsonOf, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { WebhookSchema } from "../../src/routes/webhooks-shared.ts";
import { call } from "../support.ts";
import { webhookRouteSetup } from "../webhooks-support.ts";

describe("GET /api/v1/webhooks/{id}: success", () => {
  test("shows one endpoint, without its secret", async ({ db }) => {
    const { app, owner, create } = await webhookRouteSetup(db);
    const { webhook, secret } = await create(owner.key, { description: "ops" });
    const res = await call(app, "GET", `/api/v1/webhooks/${webhook.id}`, owner.key);
    expect(res.status).toBe(200);
    const body = await jsonOf(res, z.object({ webhook: WebhookSchema }));
    expect(body.webhook).toMatchObject({ id: webhook.id, description: "ops", enabled: true });
    expect(JSON.stringify(body)).not.toContain(secret.slice("whsec_".length));
  });
});

describe("GET /api/v1/webhooks/{id}: errors", () => {
  test("an unknown id is 404 WEBHOOK_NOT_FOUND; a NUL in the id is 400", async ({ db }) => {
    const { app, owner } = await webhookRouteSetup(db);
    const res = await call(app, "GET", "/api/v1/webhooks/wh_nope", owner.key);
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ error: "WEBHOOK_NOT_FOUND", id: "wh_nope" });
    expect((await call(app, "GET", "/api/v1/webhooks/wh_%00", owner.key)).status).toBe(400);
  });
});

describe("GET /api/v1/webhooks/{id}: security", () => {
  test("needs posts:read, and another account's endpoint is 404", async ({ db }) => {
    const { app, owner, reader, uploader, stranger, create } = await webhookRouteSetup(db);
    const { webhook } = await create(owner.key);
    const path = `/api/v1/webhooks/${webhook.id}`;
    expect((await call(app, "GET", path, undefined)).status).toBe(401);
    expect((await call(app, "GET", path, uploader.key)).status).toBe(403);
    expect((await call(app, "GET", path, reader.key)).status).toBe(404);
    const theirs = await call(app, "GET", path, stranger.key);
    expect(theirs.status).toBe(404);
    expect(await json(theirs)).toMatchObject({ error: "WEBHOOK_NOT_FOUND" });
  });
});

import { captureLogs, json, jsonOf, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { PUBLISHER_EVENT_TYPES } from "../../src/contracts/events.ts";
import { WebhookWithSecretSchema } from "../../src/routes/webhooks-shared.ts";
import { MAX_ENDPOINTS_PER_ACCOUNT } from "../../src/webhooks/endpoint-store.ts";
import { call } from "../support.ts";
import { webhookApp, webhookRouteSetup } from "../webhooks-support.ts";

describe("POST /api/v1/webhooks: success", () => {
  test("makes an endpoint for every event type, its secret shown once", async ({ db }) => {
    const { app, owner } = await webhookRouteSetup(db);
    const res = await call(app, "POST", "/api/v1/webhooks", owner.key, {
      url: "https://hooks.example.com/a?b=c",
    });
    expect(res.status).toBe(201);
    const body = await jsonOf(res, WebhookWithSecretSchema);
    expect(body.webhook).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: "https://hooks.example.com/a?b=c",
      description: null,
      eventTypes: null,
      enabled: true,
      disabledReason: null,
      failingSince: null,
      consecutiveFailures: 0,
      previousSecretExpiresAt: null,
      createdAt: "2026-06-15T06:00:00.000Z",
      updatedAt: "2026-06-15T06:00:00.000Z",
    });
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const shown = await json(await call(app, "GET", `/api/v1/webhooks/${body.webhook.id}`, owner.key));
    expect(JSON.stringify(shown)).not.toContain(body.secret.slice("whsec_".length));
  });

  test("takes event types (each once), a description, and a start turned off", async ({ db }) => {
    const { app, owner } = await webhookRouteSetup(db);
    const res = await call(app, "POST", "/api/v1/webhooks", owner.key, {
      url: "http://hooks.example.com/b",
      eventTypes: ["post.failed", "target.failed", "post.failed"],
      description: "  on-call pager  ",
      enabled: false,
    });
    expect(res.status).toBe(201);
    expect((await json(res)).webhook).toMatchObject({
      eventTypes: ["post.failed", "target.failed"],
      description: "on-call pager",
      enabled: false,
      disabledReason: "owner",
    });
  });

  test("the OpenAPI document lists every event as an OpenAPI 3.1 webhook", async ({ db }) => {
    const { app } = await webhookRouteSetup(db);
    const document = await json(await app.request("/openapi.json"));
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(document.webhooks).sort()).toEqual([...PUBLISHER_EVENT_TYPES].sort());
    const published = document.webhooks["post.published"].post;
    expect(
      published.parameters.map((parameter: { name: string; in: string }) => [parameter.in, parameter.name]),
    ).toEqual([
      ["header", "webhook-id"],
      ["header", "webhook-timestamp"],
      ["header", "webhook-signature"],
    ]);
    expect(published.requestBody.content["application/json"].schema).toBeDefined();
    expect(document.paths["/api/v1/webhooks"].post.operationId).toBe("webhooks_create");
  });
});

describe("POST /api/v1/webhooks: errors", () => {
  test("a missing or malformed URL, an unknown or empty event type list and a long description are 400", async ({
    db,
  }) => {
    const { app, owner } = await webhookRouteSetup(db);
    const bodies: [Record<string, unknown>, string][] = [
      [{}, "url"],
      [{ url: "hooks.example.com/x" }, "url"],
      [{ url: "ftp://hooks.example.com/x" }, "url"],
      [{ url: "https://user:pass@hooks.example.com/x" }, "url"],
      [{ url: `https://hooks.example.com/${"x".repeat(2_100)}` }, "url"],
      [{ url: "https://hooks.example.com/\u0000" }, "url"],
      [{ url: "https://hooks.example.com/x", eventTypes: ["post.exploded"] }, "eventTypes.0"],
      [{ url: "https://hooks.example.com/x", eventTypes: [] }, "eventTypes"],
      [{ url: "https://hooks.example.com/x", description: "d".repeat(501) }, "description"],
      [{ url: "https://hooks.example.com/x", enabled: "yes" }, "enabled"],
    ];
    for (const [body, path] of bodies) {
      const res = await call(app, "POST", "/api/v1/webhooks", owner.key, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(await json(res)).toMatchObject({ error: "VALIDATION_FAILED", issues: [{ path }] });
    }
  });

  test(`an endpoint past an account's ${MAX_ENDPOINTS_PER_ACCOUNT} is 409 WEBHOOK_LIMIT_REACHED`, async ({
    db,
  }) => {
    const { app, owner, create } = await webhookRouteSetup(db);
    for (let index = 0; index < MAX_ENDPOINTS_PER_ACCOUNT; index += 1) await create(owner.key);
    const res = await call(app, "POST", "/api/v1/webhooks", owner.key, {
      url: "https://hooks.example.com/21",
    });
    expect(res.status).toBe(409);
    expect(await json(res)).toMatchObject({
      error: "WEBHOOK_LIMIT_REACHED",
      limit: MAX_ENDPOINTS_PER_ACCOUNT,
    });
  });
});

describe("POST /api/v1/webhooks: security", () => {
  test("needs a key with posts:write", async ({ db }) => {
    const { app, reader, uploader } = await webhookRouteSetup(db);
    const body = { url: "https://hooks.example.com/x" };
    expect((await call(app, "POST", "/api/v1/webhooks", undefined, body)).status).toBe(401);
    for (const key of [reader.key, uploader.key]) {
      const res = await call(app, "POST", "/api/v1/webhooks", key, body);
      expect(res.status).toBe(403);
      expect(await json(res)).toMatchObject({ error: "INSUFFICIENT_SCOPE", requiredScope: "posts:write" });
    }
  });

  test("the secret is in no log line", async ({ db }) => {
    const { owner } = await webhookRouteSetup(db);
    const logs = captureLogs("trace");
    const { app } = webhookApp(db, { logger: logs.logger });
    const { secret } = await json(
      await call(app, "POST", "/api/v1/webhooks", owner.key, { url: "https://hooks.example.com/x" }),
    );
    expect(logs.lines.length).toBeGreaterThan(0);
    expect(logs.lines.join("\n")).not.toContain(secret.slice("whsec_".length, 20));
  });
});

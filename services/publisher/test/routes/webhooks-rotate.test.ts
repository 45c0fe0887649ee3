import { json, jsonOf, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { WebhookWithSecretSchema } from "../../src/routes/webhooks-shared.ts";
import { call } from "../support.ts";
import { webhookRouteSetup } from "../webhooks-support.ts";

describe("POST /api/v1/webhooks/{id}/rotate: success", () => {
  test("answers a new secret once, the old one signing for 24 hours more", async ({ db }) => {
    const { app, clock, owner, create } = await webhookRouteSetup(db);
    const { webhook, secret } = await create(owner.key);
    const res = await call(app, "POST", `/api/v1/webhooks/${webhook.id}/rotate`, owner.key);
    expect(res.status).toBe(200);
    const rotated = await jsonOf(res, WebhookWithSecretSchema);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(secret);
    expect(rotated.webhook.previousSecretExpiresAt).toBe("2026-06-16T06:00:00.000Z");
    clock.advance(24 * 3_600_000);
    const later = await json(await call(app, "GET", `/api/v1/webhooks/${webhook.id}`, owner.key));
    expect(later.webhook.previousSecretExpiresAt).toBeNull();
  });
});

describe("POST /api/v1/webhooks/{id}/rotate: errors", () => {
  test("an unknown endpoint is 404", async ({ db }) => {
    const { app, owner } = await webhookRouteSetup(db);
    const res = await call(app, "POST", "/api/v1/webhooks/wh_nope/rotate", owner.key);
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ error: "WEBHOOK_NOT_FOUND" });
  });
});

describe("POST /api/v1/webhooks/{id}/rotate: security", () => {
  test("needs posts:write, and another account's endpoint is 404 with its secret unchanged", async ({
    db,
  }) => {
    const { app, owner, reader, stranger, create } = await webhookRouteSetup(db);
    const { webhook } = await create(owner.key);
    const path = `/api/v1/webhooks/${webhook.id}/rotate`;
    const [before] = await db.query<{ secret: string }>(
      "SELECT secret FROM publisher.webhook_endpoints WHERE id = $1",
      [webhook.id],
    );
    expect((await call(app, "POST", path, undefined)).status).toBe(401);
    expect((await call(app, "POST", path, reader.key)).status).toBe(403);
    expect((await call(app, "POST", path, stranger.key)).status).toBe(404);
    const [after] = await db.query<{ secret: string }>(
      "SELECT secret FROM publisher.webhook_endpoints WHERE id = $1",
      [webhook.id],
    );
    expect(after?.secret).toBe(before?.secret);
  });
});

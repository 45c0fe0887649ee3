import { z } from "@app/core";
import { json, jsonOf, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { WebhookSchema } from "../../src/routes/webhooks-shared.ts";
import { call } from "../support.ts";
import { webhookRouteSetup } from "../webhooks-support.ts";

const WebhookList = z.object({ webhooks: z.array(WebhookSchema) });

describe("GET /api/v1/webhooks: success", () => {
  test("lists the account's endpoints oldest first, never their secrets, never another account's", async ({
    db,
  }) => {
    const { app, clock, owner, stranger, create } = await webhookRouteSetup(db);
    expect(await json(await call(app, "GET", "/api/v1/webhooks", owner.key))).toEqual({ webhooks: [] });
    const first = await create(owner.key, { url: "https://one.example.com/h" });
    clock.advance(1_000);
    const second = await create(owner.key, { url: "https://two.example.com/h", eventTypes: ["post.failed"] });
    await create(stranger.key, { url: "https://theirs.example.com/h" });
    const res = await call(app, "GET", "/api/v1/webhooks", owner.key);
    expect(res.status).toBe(200);
    const { webhooks } = await jsonOf(res, WebhookList);
    expect(webhooks.map((webhook) => webhook.id)).toEqual([first.webhook.id, second.webhook.id]);
    expect(webhooks[1]?.eventTypes).toEqual(["post.failed"]);
    const text = JSON.stringify(webhooks);
    for (const { secret } of [first, second]) expect(text).not.toContain(secret.slice("whsec_".length));
  });
});

describe("GET /api/v1/webhooks: security", () => {
  test("needs a key with posts:read", async ({ db }) => {
    const { app, reader, uploader } = await webhookRouteSetup(db);
    expect((await call(app, "GET", "/api/v1/webhooks", undefined)).status).toBe(401);
    expect((await call(app, "GET", "/api/v1/webhooks", uploader.key)).status).toBe(403);
    expect((await call(app, "GET", "/api/v1/webhooks", reader.key)).status).toBe(200);
  });
});

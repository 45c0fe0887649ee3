import { json, test } from "@app/testkit";
import { WebhookVerificationError } from "standardwebhooks";
import { describe, expect } from "vitest";
import { createFakeSender } from "../../src/webhooks/sender.fake.ts";
import { call, seedAccount } from "../support.ts";
import { drain, recordEvent, testWorker, verifyAt, webhookApp } from "../webhooks-support.ts";

const HOUR = 3_600_000;

async function setup(db: Parameters<typeof seedAccount>[0]) {
  // The file's tests share a database: each starts with no endpoint (and so no delivery) left.
  await db.query("DELETE FROM publisher.webhook_endpoints");
  const account = await seedAccount(db);
  const { app, clock } = webhookApp(db, { now: "2026-06-15T06:00:00Z" });
  const created = await json(
    await call(app, "POST", "/api/v1/webhooks", account.key, { url: "https://hooks.example.com/publisher" }),
  );
  const sender = createFakeSender();
  const worker = testWorker(db, { sender, clock });
  return {
    ...account,
    app,
    clock,
    sender,
    worker,
    webhookId: created.webhook.id as string,
    secret: created.secret as string,
  };
}

describe("webhook signatures (Standard Webhooks)", () => {
  test("a delivery verifies with the standardwebhooks library's own verify, and with no other secret", async ({
    db,
  }) => {
    const { accountId, clock, sender, worker, secret } = await setup(db);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const eventId = await recordEvent(db, accountId, clock.now(), "post.published", {
      postId: "post_1",
      status: "published",
    });
    await drain(db, worker);
    expect(sender.sent).toHaveLength(1);
    const [sent] = sender.sent;
    if (!sent) throw new Error("nothing sent");
    expect(sent.headers["webhook-id"]).toBe(eventId);
    expect(sent.headers["webhook-timestamp"]).toBe(String(Math.floor(clock.now().getTime() / 1000)));
    expect(verifyAt(secret, sent.body, sent.headers, clock.now())).toEqual({
      type: "post.published",
      timestamp: "2026-06-15T06:00:00.000Z",
      data: { postId: "post_1", status: "published" },
    });
    const stranger = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    expect(() => verifyAt(stranger, sent.body, sent.headers, clock.now())).toThrow(WebhookVerificationError);
    expect(() => verifyAt(secret, `${sent.body} `, sent.headers, clock.now())).toThrow(
      WebhookVerificationError,
    );
  });

  test("after a rotation both secrets verify for 24 hours, then only the new one", async ({ db }) => {
    const { accountId, app, key, clock, sender, worker, webhookId, secret: old } = await setup(db);
    const rotated = await call(app, "POST", `/api/v1/webhooks/${webhookId}/rotate`, key);
    expect(rotated.status).toBe(200);
    const { secret: fresh, webhook } = await json(rotated);
    expect(fresh).not.toBe(old);
    expect(webhook.previousSecretExpiresAt).toBe("2026-06-16T06:00:00.000Z");

    const sendAt = async (offsetMs: number) => {
      clock.set(new Date(Date.parse("2026-06-15T06:00:00Z") + offsetMs).toISOString());
      await recordEvent(db, accountId, clock.now());
      await drain(db, worker);
      const sent = sender.sent.at(-1);
      if (!sent) throw new Error("nothing sent");
      return sent;
    };
    for (const offset of [0, HOUR, 24 * HOUR - 1_000]) {
      const sent = await sendAt(offset);
      expect((sent.headers["webhook-signature"] ?? "").split(" ")).toHaveLength(2);
      expect(verifyAt(fresh, sent.body, sent.headers, clock.now())).toBeTruthy();
      expect(verifyAt(old, sent.body, sent.headers, clock.now())).toBeTruthy();
    }
    const after = await sendAt(24 * HOUR + 1_000);
    expect((after.headers["webhook-signature"] ?? "").split(" ")).toHaveLength(1);
    expect(verifyAt(fresh, after.body, after.headers, clock.now())).toBeTruthy();
    expect(() => verifyAt(old, after.body, after.headers, clock.now())).toThrow(WebhookVerificationError);
    const shown = await json(await call(app, "GET", `/api/v1/webhooks/${webhookId}`, key));
    expect(shown.webhook.previousSecretExpiresAt).toBeNull();
  });

  test("the secret is stored sealed: neither it nor its base64 body is in the database", async ({ db }) => {
    const { webhookId, secret } = await setup(db);
    const [row] = await db.query<Record<string, unknown>>(
      "SELECT * FROM publisher.webhook_endpoints WHERE id = $1",
      [webhookId],
    );
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice("whsec_".length));
    expect(row?.secret).toMatch(/^v1\./);
  });
});

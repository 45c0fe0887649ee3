import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { responseExcerpt } from "../../src/webhooks/excerpt.ts";
import { newWebhookSecret } from "../../src/webhooks/secrets.ts";
import { createFakeSender } from "../../src/webhooks/sender.fake.ts";
import { call, seedAccount } from "../support.ts";
import { drain, recordEvent, testWorker, webhookApp } from "../webhooks-support.ts";

/** The ways a receiver could write a signing secret back: the key itself, and its bytes re-encoded. */
function secretForms(secret: string): Record<string, string> {
  const bare = secret.slice("whsec_".length);
  const bytes = Buffer.from(bare, "base64");
  return {
    prefixed: secret,
    bare,
    unpadded: bare.replace(/=+$/, ""),
    base64url: bytes.toString("base64url"),
    hex: bytes.toString("hex"),
    upperHex: bytes.toString("hex").toUpperCase(),
    urlEncoded: encodeURIComponent(bare),
  };
}

/**
 * Audit of issue 18, finding 4: the attempt's response excerpt (stored, and shown in the delivery
 * log) redacted `whsec_…` but not the same key without its prefix, nor its bytes in another
 * encoding. Every form is redacted now, for the previous secret during a rotation too.
 */
describe("a receiver echoing the signing secret without its prefix", () => {
  test("no form of the secret is kept in the excerpt", () => {
    const secret = newWebhookSecret();
    for (const [form, text] of Object.entries(secretForms(secret))) {
      const excerpt = responseExcerpt(Buffer.from(`{"echo":"${text}","ok":false}`), [secret]);
      expect({ form, excerpt }).toEqual({ form, excerpt: '{"echo":"[redacted]","ok":false}' });
    }
  });

  test("a secret cut by the end of the excerpt leaves no part of itself", () => {
    const secret = newWebhookSecret();
    const bare = secret.slice("whsec_".length);
    const excerpt = responseExcerpt(Buffer.from(`error: ${bare.slice(0, 30)}`), [secret]);
    expect(excerpt).toBe("error: [redacted]");
    expect(responseExcerpt(Buffer.from("plain answer"), [secret])).toBe("plain answer");
  });

  test("neither the current nor the previous secret is stored, in any form, after a rotation", async ({
    db,
  }) => {
    await db.query("DELETE FROM publisher.webhook_endpoints");
    const owner = await seedAccount(db);
    const { app, clock } = webhookApp(db, { now: "2026-06-15T06:00:00Z" });
    const created = await json(
      await call(app, "POST", "/api/v1/webhooks", owner.key, { url: "https://hooks.example.com/p" }),
    );
    const previous: string = created.secret;
    const rotated = await json(
      await call(app, "POST", `/api/v1/webhooks/${created.webhook.id}/rotate`, owner.key),
    );
    const current: string = rotated.secret;
    const forms = [...Object.values(secretForms(previous)), ...Object.values(secretForms(current))];
    const sender = createFakeSender(() => ({ status: 500, body: forms.join(" ") }));
    const worker = testWorker(db, { sender, clock });
    await recordEvent(db, owner.accountId, clock.now());
    await drain(db, worker);

    const [attempt] = await db.query<{ excerpt: string }>(
      "SELECT response_excerpt AS excerpt FROM publisher.webhook_attempts",
    );
    expect(attempt?.excerpt).toBe(forms.map(() => "[redacted]").join(" "));
    const log = await (
      await call(app, "GET", `/api/v1/webhooks/${created.webhook.id}/deliveries`, owner.key)
    ).text();
    for (const form of forms) expect(log).not.toContain(form);
  });
});

/**
 * A premium fortune retried with its Idempotency-Key once the category's limit is reached gets
 * the stored fortune as the very bytes first sent. It used to come back re-serialised from jsonb,
 * its keys reordered (`{"charged",…}` instead of `{"fortune",…}`).
 */
import { LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeX402Rail, signedPaymentHeader } from "../../src/payments/x402-rail.fake.ts";
import { gateOn } from "./gate-harness.ts";

const PAYER_KEY = LOCAL_DEV_ACCOUNTS.payer.privateKey;

describe("an Idempotency-Key replay of a premium fortune", () => {
  test("after the category limit, is the same bytes, status and content type, marked replayed", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    const { app } = await gateOn(db, rail);
    const premium = async (headers: Record<string, string> = {}) =>
      app.request("/api/fortune/premium", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "payment-signature": await signedPaymentHeader(rail, "upto", 5000n, PAYER_KEY),
          ...headers,
        },
        body: JSON.stringify({ category: "love" }),
      });

    const first = await premium({ "idempotency-key": "premium-bytes" });
    expect(first.status).toBe(200);
    const firstText = await first.text();
    expect(firstText.startsWith('{"fortune":')).toBe(true);
    // The category's other uses (the harness allows three), then the limit.
    expect((await premium()).status).toBe(200);
    expect((await premium()).status).toBe(200);
    expect((await premium()).status).toBe(429);

    const retry = await premium({ "idempotency-key": "premium-bytes" });
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(await retry.text()).toBe(firstText);
    expect(rail.settlements).toBe(3);
  });
});

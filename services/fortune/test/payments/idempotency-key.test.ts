import { LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeX402Rail, signedPaymentHeader } from "../../src/payments/x402-rail.fake.ts";
import { gateOn } from "./gate-harness.ts";

const PAYER_KEY = LOCAL_DEV_ACCOUNTS.payer.privateKey;

const premium = async (rail: FakeX402Rail, category: string, key: string) => ({
  method: "POST",
  headers: {
    "content-type": "application/json",
    "payment-signature": await signedPaymentHeader(rail, "upto", 5000n, PAYER_KEY),
    "idempotency-key": key,
  },
  body: JSON.stringify({ category }),
});

describe("fortune's Idempotency-Key", () => {
  test("a malformed key is the platform's 400 VALIDATION_FAILED naming the header, and nothing is charged", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    const { app, ledger } = await gateOn(db, rail);
    for (const key of ["x".repeat(256), "two words", '"unterminated']) {
      const res = await app.request("/api/fortune/premium", await premium(rail, "love", key));
      expect(res.status, key).toBe(400);
      const body = await json(res);
      expect(body.error).toBe("VALIDATION_FAILED");
      expect(body.issues).toEqual([{ path: "Idempotency-Key", message: expect.any(String) }]);
    }
    expect(rail.settlements).toBe(0);
    expect(await ledger.forRoute("fortune_premium")).toEqual([]);
  });

  test("the key in the draft's form (a quoted string) is the same key as sent bare", async ({ db }) => {
    const rail = new FakeX402Rail();
    const { app } = await gateOn(db, rail);
    const first = await app.request("/api/fortune/premium", await premium(rail, "love", "quoted-1"));
    const again = await app.request("/api/fortune/premium", await premium(rail, "love", '"quoted-1"'));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(await first.text());
    expect(rail.settlements).toBe(1);
  });

  test("a key reused with another body is 422 IDEMPOTENCY_KEY_REUSED, and nothing more is charged", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    const { app } = await gateOn(db, rail);
    expect((await app.request("/api/fortune/premium", await premium(rail, "love", "reused-1"))).status).toBe(
      200,
    );
    const res = await app.request("/api/fortune/premium", await premium(rail, "career", "reused-1"));
    expect(res.status).toBe(422);
    expect((await json(res)).error).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(rail.settlements).toBe(1);
  });

  test("a key whose settlement awaits the chain is never taken over, however long it waits", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    rail.settlement = "pending";
    rail.chainSays = "pending";
    const { app } = await gateOn(db, rail);
    const first = await app.request("/api/fortune/premium", await premium(rail, "love", "on-chain-1"));
    expect(first.status).toBe(503);
    // A day later, the chain still has not said: the key's lease would long have run out.
    await db.exec(`UPDATE edge.idempotency_keys SET created_at = created_at - interval '1 day',
      lease_until = lease_until - interval '1 day' WHERE namespace = 'fortune'`);
    const retry = await app.request("/api/fortune/premium", await premium(rail, "love", "on-chain-1"));
    expect(retry.status).toBe(503);
    expect(rail.settlements).toBe(1);
  });
});

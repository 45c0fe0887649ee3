/**
 * AUDIT: the Idempotency-Key replay path checks the presented authorisation's signature offline
 * (isSignedByPayer → viem hashTypedData). The payload schema accepts any 1..78-digit uint256, so a
 * value above 2^256-1 passes decoding and then makes hashTypedData throw: a 500 instead of a 402.
 * Anyone can do it: `from` is merely claimed, so the attacker names any payer whose key they know
 * (or their own) under a key that exists.
 */
import { LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeX402Rail, signedPaymentHeader } from "../../src/payments/x402-rail.fake.ts";
import { gateOn } from "../payments/gate-harness.ts";

const PAYER_KEY = LOCAL_DEV_ACCOUNTS.payer.privateKey;
const OVER_UINT256 = "9".repeat(78);

const pay = (header: string, key: string) => ({
  method: "POST",
  headers: { "payment-signature": header, "idempotency-key": key },
});

describe("AUDIT: hostile fields on the Idempotency-Key replay path", () => {
  for (const [label, tamper] of [
    [
      "an EIP-3009 value above 2^256-1",
      (p: Record<string, unknown>) => {
        (p.authorization as Record<string, string>).value = OVER_UINT256;
      },
    ],
    [
      "an EIP-3009 validBefore above 2^256-1",
      (p: Record<string, unknown>) => {
        (p.authorization as Record<string, string>).validBefore = OVER_UINT256;
      },
    ],
  ] as const) {
    test(`${label} on a replay is a 402, never a 500`, async ({ db }) => {
      const rail = new FakeX402Rail();
      const { app } = await gateOn(db, rail);
      const key = `hostile-${label.length}`;
      const first = await app.request(
        "/api/fortune",
        pay(await signedPaymentHeader(rail, "exact", 1000n, PAYER_KEY), key),
      );
      expect(first.status).toBe(200);

      const forged = await signedPaymentHeader(rail, "exact", 1000n, PAYER_KEY, tamper);
      const res = await app.request("/api/fortune", pay(forged, key));
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(402);
      expect(body.error).toBe("invalid_payment_payload");
    });
  }

  test("a Permit2 nonce above 2^256-1 on an upto replay is a 402, never a 500", async ({ db }) => {
    const rail = new FakeX402Rail();
    const { app } = await gateOn(db, rail);
    const premium = (header: string) =>
      app.request("/api/fortune/premium", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "payment-signature": header,
          "idempotency-key": "hostile-upto",
        },
        body: JSON.stringify({ category: "career" }),
      });
    expect((await premium(await signedPaymentHeader(rail, "upto", 5000n, PAYER_KEY))).status).toBe(200);
    const forged = await signedPaymentHeader(rail, "upto", 5000n, PAYER_KEY, (p) => {
      (p.permit2Authorization as Record<string, string>).nonce = OVER_UINT256;
    });
    const res = await premium(forged);
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(402);
  });
});

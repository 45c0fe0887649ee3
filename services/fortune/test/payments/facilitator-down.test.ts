import { LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeX402Rail, signedPaymentHeader } from "../../src/payments/x402-rail.fake.ts";
import { gateOn } from "./gate-harness.ts";

describe("a facilitator that cannot be reached", () => {
  test("unpaid and paying requests get 503 PAYMENTS_UNAVAILABLE with Retry-After, never a 500, and nothing is claimed", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    const { app, ledger } = await gateOn(db, rail);
    const header = await signedPaymentHeader(rail, "exact", 1000n, LOCAL_DEV_ACCOUNTS.payer.privateKey);
    rail.facilitatorDown = true;
    for (const headers of [{}, { "payment-signature": header }]) {
      const res = await app.request("/api/fortune", { method: "POST", headers });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      const body = await json(res);
      expect(body.error).toBe("PAYMENTS_UNAVAILABLE");
      expect(JSON.stringify(body)).not.toContain("ECONNREFUSED");
    }
    expect(await ledger.forRoute("fortune")).toEqual([]);
  });

  test("a keyed payment refused for that reason leaves its Idempotency-Key free: the retry runs once the facilitator is back", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    const { app, ledger } = await gateOn(db, rail);
    const paying = {
      "payment-signature": await signedPaymentHeader(
        rail,
        "exact",
        1000n,
        LOCAL_DEV_ACCOUNTS.payer.privateKey,
      ),
      "idempotency-key": "down-1",
    };
    rail.facilitatorDown = true;
    expect((await app.request("/api/fortune", { method: "POST", headers: paying })).status).toBe(503);
    rail.facilitatorDown = false;
    const retry = await app.request("/api/fortune", { method: "POST", headers: paying });
    expect(retry.status).toBe(200);
    expect(await ledger.forRoute("fortune")).toMatchObject([{ state: "settled", idempotencyKey: "down-1" }]);
  });
});

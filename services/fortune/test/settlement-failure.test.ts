import { createServiceApp, systemClock } from "@app/core";
import type { Database } from "@app/db";
import { migrateService } from "@app/runtime";
import { json, silentLogger, test } from "@app/testkit";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from "@x402/core/types";
import { describe, expect } from "vitest";
import { createApp } from "../src/app.ts";
import { SiwxAuthenticator } from "../src/identity/siwx.ts";
import { PaymentGate } from "../src/payments/gate.ts";
import type { MppRail } from "../src/payments/mpp-rail.ts";
import { buildPaymentRequired, type X402Rail, type X402Scheme } from "../src/payments/x402-rail.ts";
import { fortuneService } from "../src/service.ts";
import { EntitlementStore } from "../src/store/entitlements.ts";
import { FavoritesStore } from "../src/store/favorites.ts";
import { IdempotencyStore } from "../src/store/idempotency.ts";
import { PaymentLedger } from "../src/store/ledger.ts";
import { PremiumUsage } from "../src/store/premium-usage.ts";
import { LocalFortuneWriter } from "../src/text/local-writer.ts";

const PAYER = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";

/** An x402 rail that accepts every authorisation and settles as told: the facilitator's word, or a dead chain. */
class FakeX402Rail implements X402Rail {
  readonly network = "eip155:1337" as const;
  outcome: "settled" | "refused" | "unreachable" = "refused";
  settlements = 0;

  async requirements(scheme: X402Scheme, atomic: bigint): Promise<PaymentRequirements> {
    return {
      scheme,
      network: this.network,
      asset: "0x00000000000000000000000000000000000000a1",
      amount: atomic.toString(),
      payTo: "0x00000000000000000000000000000000000000b2",
      maxTimeoutSeconds: 300,
      extra: { name: "USD Coin", version: "1" },
    };
  }

  paymentRequired = buildPaymentRequired;

  async verify(payload: PaymentPayload): Promise<VerifyResponse> {
    return {
      isValid: true,
      payer: (payload.payload as { authorization: { from: string } }).authorization.from,
    };
  }

  async settle(_payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
    this.settlements += 1;
    if (this.outcome === "unreachable") throw new Error("connect ECONNREFUSED 127.0.0.1:8545");
    if (this.outcome === "refused") {
      return {
        success: false,
        errorReason: "insufficient_funds",
        transaction: "",
        network: requirements.network,
      };
    }
    return {
      success: true,
      transaction: `0x${"ab".repeat(32)}`,
      network: requirements.network,
      payer: PAYER,
    };
  }
}

let nonce = 0;
async function paymentFor(rail: X402Rail, scheme: X402Scheme, atomic: bigint): Promise<string> {
  const accepted = await rail.requirements(scheme, atomic);
  nonce += 1;
  return encodePaymentSignatureHeader({
    x402Version: 2,
    accepted,
    payload: {
      signature: `0x${"11".repeat(65)}`,
      authorization: {
        from: PAYER,
        to: accepted.payTo,
        value: accepted.amount,
        validAfter: "0",
        validBefore: "9999999999",
        nonce: `0x${nonce.toString(16).padStart(64, "0")}`,
      },
    },
  });
}

function appOn(db: Database, rail: FakeX402Rail) {
  const origin = () => new URL("http://fortune.test");
  const siwx = new SiwxAuthenticator(db, { origin, network: rail.network, clock: systemClock });
  const ledger = new PaymentLedger(db);
  const gate = new PaymentGate({
    x402: rail,
    siwx,
    ledger,
    idempotency: new IdempotencyStore(db),
    entitlements: new EntitlementStore(db),
    origin,
  });
  const app = createApp({
    db,
    logger: silentLogger(),
    clock: systemClock,
    gate,
    siwx,
    ledger,
    writer: new LocalFortuneWriter(),
    favorites: new FavoritesStore(db),
    premium: new PremiumUsage(db, { perCategory: 3, windowMs: 86_400_000 }, systemClock),
    // Only the MPP session routes use this rail; these tests pay by x402.
    mpp: {} as MppRail,
    mppCurrency: "0x20c0000000000000000000000000000000000000",
    mppMethod: "tempo",
    origin,
  });
  return { app, ledger, gate };
}

describe("settlement that fails serves nothing and is recorded", () => {
  test("the facilitator says success: false → 402, no fortune, the ledger records the failure", async ({
    db,
  }) => {
    await migrateService(fortuneService, db);
    const rail = new FakeX402Rail();
    const { app, ledger } = appOn(db, rail);
    const res = await app.request("/api/fortune", {
      method: "POST",
      headers: { "payment-signature": await paymentFor(rail, "exact", 1000n) },
    });
    expect(res.status).toBe(402);
    const text = await res.text();
    expect(text).not.toContain('"fortune"');
    expect(JSON.parse(text).error).toBe("settlement_failed: insufficient_funds");
    const [record] = await ledger.forRoute("fortune");
    expect(record).toMatchObject({ state: "failed", payer: PAYER, settledAtomic: null });
    expect(record?.failureReason).toMatch(/^insufficient_funds/);
  });

  test("the chain is unreachable at settlement → 402, no fortune, recorded; a retry with the key runs again", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    rail.outcome = "unreachable";
    const { app, ledger } = appOn(db, rail);
    const headers = { "idempotency-key": "chain-down-1" };
    const down = await app.request("/api/fortune", {
      method: "POST",
      headers: { ...headers, "payment-signature": await paymentFor(rail, "exact", 1000n) },
    });
    expect(down.status).toBe(402);
    expect((await json(down)).error).toBe("settlement_failed: settlement_unavailable");
    const failed = (await ledger.forRoute("fortune")).find((p) => p.idempotencyKey === "chain-down-1");
    expect(failed).toMatchObject({ state: "failed" });
    expect(failed?.failureReason).toContain("ECONNREFUSED");

    rail.outcome = "settled";
    const retry = await app.request("/api/fortune", {
      method: "POST",
      headers: { ...headers, "payment-signature": await paymentFor(rail, "exact", 1000n) },
    });
    expect(retry.status).toBe(200);
    expect(typeof (await json(retry)).fortune).toBe("string");
  });

  test("a premium whose settlement fails gives its use of the category back", async ({ db }) => {
    const rail = new FakeX402Rail();
    const { app } = appOn(db, rail);
    const premium = async () =>
      app.request("/api/fortune/premium", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "payment-signature": await paymentFor(rail, "upto", 5000n),
        },
        body: JSON.stringify({ category: "love" }),
      });
    for (let i = 0; i < 4; i++) expect((await premium()).status).toBe(402);
    expect(await db.query("SELECT id FROM fortune.premium_usage WHERE category = 'love'")).toEqual([]);
    rail.outcome = "settled";
    expect((await premium()).status).toBe(200);
    expect(await db.query("SELECT id FROM fortune.premium_usage WHERE category = 'love'")).toHaveLength(1);
  });

  test("an upto handler charging over its cap is a 400 CHARGE_OVER_CAP and nothing is settled", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    rail.outcome = "settled";
    const { gate, ledger } = appOn(db, rail);
    const app = createServiceApp({
      name: "cap",
      title: "Cap",
      version: "1",
      logger: silentLogger(),
      checkReady: async () => undefined,
    });
    app.post("/greedy", (c) =>
      gate.handle(
        c,
        {
          route: "greedy",
          path: "/greedy",
          description: "Over-charges",
          x402: { scheme: "upto", priceUsd: "0.005" },
          request: null,
        },
        async (ctx) => {
          ctx.charge("0.003");
          ctx.charge("0.003");
          return { never: true };
        },
      ),
    );
    const res = await app.request("/greedy", {
      method: "POST",
      headers: { "payment-signature": await paymentFor(rail, "upto", 5000n) },
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("CHARGE_OVER_CAP");
    expect(rail.settlements).toBe(0);
    expect(await ledger.forRoute("greedy")).toMatchObject([{ state: "canceled" }]);
  });
});

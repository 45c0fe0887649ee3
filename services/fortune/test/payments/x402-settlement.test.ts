import { createServiceApp } from "@app/core";
import { LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { json, silentLogger, test } from "@app/testkit";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { describe, expect } from "vitest";
import { FAKE_TRANSACTION, FakeX402Rail, signedPaymentHeader } from "../../src/payments/x402-rail.fake.ts";
import { gateOn } from "./gate-harness.ts";

const PAYER_KEY = LOCAL_DEV_ACCOUNTS.payer.privateKey;
const PAYER = LOCAL_DEV_ACCOUNTS.payer.address.toLowerCase();

const pay = (header: string, extra: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "payment-signature": header, ...extra },
});

describe("a settlement that fails serves nothing and is recorded", () => {
  test("the facilitator refuses the settlement: 402 with a short reason, no fortune, the ledger says failed", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    rail.settlement = "refused";
    const { app, ledger } = await gateOn(db, rail);
    const res = await app.request(
      "/api/fortune",
      pay(await signedPaymentHeader(rail, "exact", 1000n, PAYER_KEY)),
    );
    expect(res.status).toBe(402);
    const body = await json(res);
    expect(body).toMatchObject({ error: "settlement_failed" });
    expect(body.message).toContain("insufficient_funds");
    expect(body.fortune).toBeUndefined();
    const [record] = await ledger.forRoute("fortune");
    expect(record).toMatchObject({
      state: "failed",
      payer: PAYER,
      failureReason: "settlement_failed: insufficient_funds",
    });
  });

  test("a premium whose settlement fails gives its use of the category back", async ({ db }) => {
    const rail = new FakeX402Rail();
    rail.settlement = "refused";
    const { app } = await gateOn(db, rail);
    const premium = async () =>
      app.request("/api/fortune/premium", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "payment-signature": await signedPaymentHeader(rail, "upto", 5000n, PAYER_KEY),
        },
        body: JSON.stringify({ category: "love" }),
      });
    for (let i = 0; i < 4; i++) expect((await premium()).status).toBe(402);
    expect(await db.query("SELECT id FROM fortune.premium_usage WHERE category = 'love'")).toEqual([]);
    rail.settlement = "settled";
    expect((await premium()).status).toBe(200);
    expect(await db.query("SELECT id FROM fortune.premium_usage WHERE category = 'love'")).toHaveLength(1);
  });

  test("an upto handler charging over its cap is a 400 CHARGE_OVER_CAP and nothing is settled", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    const { gate, ledger } = await gateOn(db, rail);
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
    const res = await app.request("/greedy", pay(await signedPaymentHeader(rail, "upto", 5000n, PAYER_KEY)));
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("CHARGE_OVER_CAP");
    expect(rail.settlements).toBe(0);
    expect(await ledger.forRoute("greedy")).toMatchObject([{ state: "canceled" }]);
  });
});

describe("a settlement the chain has not confirmed is pending, never failed", () => {
  test("settlement_pending: 503 with Retry-After, the hash kept; the same authorisation gets the fortune once confirmed, paid once", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    rail.settlement = "pending";
    const { app, ledger } = await gateOn(db, rail);
    const header = await signedPaymentHeader(rail, "exact", 1000n, PAYER_KEY);

    const first = await app.request("/api/fortune", pay(header));
    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after")).toBe("5");
    const firstBody = await json(first);
    expect(firstBody).toMatchObject({ error: "SETTLEMENT_PENDING", transaction: FAKE_TRANSACTION });
    expect(firstBody.fortune).toBeUndefined();
    const [pending] = await ledger.forRoute("fortune");
    expect(pending).toMatchObject({ state: "pending", reference: FAKE_TRANSACTION, settledAtomic: 1000 });

    rail.chainSays = "pending";
    expect((await app.request("/api/fortune", pay(header))).status).toBe(503);

    rail.chainSays = "settled";
    const confirmed = await app.request("/api/fortune", pay(header));
    expect(confirmed.status).toBe(200);
    expect(typeof (await json(confirmed)).fortune).toBe("string");
    expect(decodePaymentResponseHeader(confirmed.headers.get("payment-response") ?? "")).toMatchObject({
      success: true,
      transaction: FAKE_TRANSACTION,
    });
    expect(rail.settlements).toBe(1);
    expect(rail.lookups.at(-1)).toMatchObject({ transaction: FAKE_TRANSACTION });
    expect(await ledger.forRoute("fortune")).toMatchObject([
      { state: "settled", reference: FAKE_TRANSACTION },
    ]);
  });

  test("a facilitator that does not answer the settlement: 503, and a retry with the same Idempotency-Key gets the response once the chain shows the authorisation used", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    rail.settlement = "unreachable";
    const { app, ledger } = await gateOn(db, rail);
    const key = { "idempotency-key": "down-1" };
    const down = await app.request(
      "/api/fortune",
      pay(await signedPaymentHeader(rail, "exact", 1000n, PAYER_KEY), key),
    );
    expect(down.status).toBe(503);
    expect(await ledger.forRoute("fortune")).toMatchObject([{ state: "pending", reference: null }]);

    rail.chainSays = "settled";
    // A new authorisation from the same payer proves who asks; it is not charged.
    const retry = await app.request(
      "/api/fortune",
      pay(await signedPaymentHeader(rail, "exact", 1000n, PAYER_KEY), key),
    );
    expect(retry.status).toBe(200);
    const fortune = (await json(retry)).fortune;
    expect(typeof fortune).toBe("string");
    expect(rail.settlements).toBe(1);
    expect(rail.lookups.at(-1)?.transaction).toBeUndefined();
    expect(await ledger.forRoute("fortune")).toMatchObject([{ state: "settled" }]);

    const again = await app.request(
      "/api/fortune",
      pay(await signedPaymentHeader(rail, "exact", 1000n, PAYER_KEY), key),
    );
    expect(again.status).toBe(200);
    expect((await json(again)).fortune).toBe(fortune);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });

  test("a pending settlement the chain fails: the retry gets 402, the ledger says failed, the premium use comes back", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    rail.settlement = "pending";
    const { app, ledger } = await gateOn(db, rail);
    const request = async (header: string) =>
      app.request("/api/fortune/premium", {
        method: "POST",
        headers: { "content-type": "application/json", "payment-signature": header },
        body: JSON.stringify({ category: "career" }),
      });
    const header = await signedPaymentHeader(rail, "upto", 5000n, PAYER_KEY);
    expect((await request(header)).status).toBe(503);
    expect(await db.query("SELECT id FROM fortune.premium_usage WHERE category = 'career'")).toHaveLength(1);

    rail.chainSays = "failed";
    const failed = await request(header);
    expect(failed.status).toBe(402);
    expect((await json(failed)).error).toBe("settlement_failed");
    expect(await ledger.forRoute("fortune_premium")).toMatchObject([{ state: "failed" }]);
    expect(await db.query("SELECT id FROM fortune.premium_usage WHERE category = 'career'")).toEqual([]);
  });

  test("the reconciler settles a pending payment from the chain and completes its Idempotency-Key", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    rail.settlement = "pending";
    const { app, ledger, reconciler } = await gateOn(db, rail);
    const key = { "idempotency-key": "reconciled-1" };
    expect(
      (
        await app.request(
          "/api/fortune",
          pay(await signedPaymentHeader(rail, "exact", 1000n, PAYER_KEY), key),
        )
      ).status,
    ).toBe(503);
    // As if the request were long gone: the reconciler looks at rows idle for a while.
    await db.query("UPDATE fortune.payments SET updated_at = now() - interval '1 minute'");
    await db.query("UPDATE edge.idempotency_keys SET created_at = now() - interval '1 minute'");

    rail.chainSays = "settled";
    expect(await reconciler.sweep()).toEqual({ payments: 1, keys: 1 });
    expect(await ledger.forRoute("fortune")).toMatchObject([
      { state: "settled", reference: FAKE_TRANSACTION },
    ]);
    const replay = await app.request(
      "/api/fortune",
      pay(await signedPaymentHeader(rail, "exact", 1000n, PAYER_KEY), key),
    );
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(rail.settlements).toBe(1);
  });

  test("after a crash mid-payment the reconciler asks the chain: a used authorisation is settled, an expired unused one canceled", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    const { ledger, reconciler } = await gateOn(db, rail);
    const interrupted = (nonce: string) =>
      ledger.claim({
        route: "fortune",
        rail: "x402",
        scheme: "exact",
        network: rail.network,
        payer: PAYER,
        claimKey: `crash:${nonce}`,
        authorizedAtomic: 1000n,
        authorizationFacts: {
          kind: "eip3009",
          from: PAYER,
          to: "0xb2",
          value: "1000",
          nonce,
          token: "0xa1",
          validAfter: "0",
          validBefore: "1",
        },
      });
    const used = await interrupted("0x01");
    await db.query("UPDATE fortune.payments SET updated_at = now() - interval '10 minutes'");
    rail.chainSays = "settled";
    expect(await reconciler.sweep()).toMatchObject({ payments: 1 });
    expect(await ledger.get(used as string)).toMatchObject({ state: "settled" });

    const unused = await interrupted("0x02");
    await db.query("UPDATE fortune.payments SET updated_at = now() - interval '10 minutes' WHERE id = $1", [
      unused,
    ]);
    rail.chainSays = "failed";
    expect(await reconciler.sweep()).toMatchObject({ payments: 1 });
    expect(await ledger.get(unused as string)).toMatchObject({ state: "canceled" });
  });
});

import { json, test } from "@app/testkit";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect } from "vitest";
import {
  challengeOf,
  type FortuneHarness,
  PAYEE,
  settlementOf,
  spareAccount,
  startFortune,
} from "../testing/harness.ts";

describe("x402 upto: premium (rate limited per category) and membership (SIWX replay)", () => {
  let h: FortuneHarness;
  const key = spareAccount(7);
  const wallet = privateKeyToAccount(key).address;

  test.beforeAll(async ({ db }) => {
    h = await startFortune(db, { FORTUNE_PREMIUM_LIMIT: "2" });
    await h.fundedWallet(key);
  });
  afterAll(async () => {
    await h?.stop();
  });

  const premium = (category: string, headers: Record<string, string> = {}, client = fetch) =>
    client(`${h.url}/api/fortune/premium`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ category }),
    });

  test("premium asks for an upto authorisation of 0.005 and settles exactly the reading's price", async () => {
    const probe = await premium("love");
    expect(probe.status).toBe(402);
    expect(challengeOf(probe).accepts[0]).toMatchObject({ scheme: "upto", amount: "5000" });
    const [payerBefore, payeeBefore] = [await h.chain.balanceOf(wallet), await h.chain.balanceOf(PAYEE)];
    const res = await premium("love", {}, h.payingFetch(key));
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ category: "love", charged: "0.003" });
    const settlement = settlementOf(res);
    expect(settlement.amount).toBe("3000");
    expect(await h.chain.balanceOf(wallet)).toBe(payerBefore - 3000n);
    expect(await h.chain.balanceOf(PAYEE)).toBe(payeeBefore + 3000n);
    const [record] = await h.ledger.forRoute("fortune_premium");
    expect(record).toMatchObject({
      scheme: "upto",
      state: "settled",
      authorizedAtomic: 5000,
      settledAtomic: 3000,
    });
  });

  test("the category limit answers 429 with Retry-After before any payment is asked", async () => {
    expect((await premium("career", {}, h.payingFetch(key))).status).toBe(200);
    expect((await premium("career", {}, h.payingFetch(key))).status).toBe(200);
    const before = await h.chain.balanceOf(wallet);
    const limited = await premium("career");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await json(limited)).error).toBe("RATE_LIMITED");
    expect(limited.headers.get("payment-required")).toBeNull();
    const paying = await premium("career", {}, h.payingFetch(key));
    expect(paying.status).toBe(429);
    expect(await h.chain.balanceOf(wallet)).toBe(before);
    expect((await premium("health")).status).toBe(402);
  });

  test("concurrent paid premiums past the limit: only the allowed number settle", async () => {
    const requests = await Promise.all(
      [1, 2, 3].map(async () => {
        const required = challengeOf(await premium("health"));
        return encodePaymentSignatureHeader(await h.x402Client(key).createPaymentPayload(required));
      }),
    );
    const before = await h.chain.balanceOf(wallet);
    const statuses = (
      await Promise.all(requests.map((header) => premium("health", { "payment-signature": header })))
    )
      .map((r) => r.status)
      .sort();
    expect(statuses).toEqual([200, 200, 429]);
    expect(await h.chain.balanceOf(wallet)).toBe(before - 2n * 2500n);
    const canceled = (await h.ledger.forRoute("fortune_premium")).filter((p) => p.state === "canceled");
    expect(canceled).toHaveLength(1);
  });

  test("membership settles 0.002 once; a SIWX replay from the same wallet is free", async () => {
    const probe = await fetch(`${h.url}/api/fortune/membership`, { method: "POST" });
    expect(probe.status).toBe(402);
    const required = challengeOf(probe);
    expect(required.accepts[0]).toMatchObject({ scheme: "upto", amount: "5000" });
    expect(required.extensions?.["sign-in-with-x"]).toBeTruthy();

    const before = await h.chain.balanceOf(wallet);
    const paid = await h.payingFetch(key)(`${h.url}/api/fortune/membership`, { method: "POST" });
    expect(paid.status).toBe(200);
    expect(await json(paid)).toMatchObject({ wallet: wallet.toLowerCase(), member: true });
    expect(settlementOf(paid).amount).toBe("2000");
    expect(await h.chain.balanceOf(wallet)).toBe(before - 2000n);

    const header = await h.signIn(key, "/api/fortune/membership", { method: "POST" });
    const replay = await fetch(`${h.url}/api/fortune/membership`, {
      method: "POST",
      headers: { "sign-in-with-x": header },
    });
    expect(replay.status).toBe(200);
    expect(await json(replay)).toMatchObject({ wallet: wallet.toLowerCase(), member: true });
    expect(replay.headers.get("payment-response")).toBeNull();
    expect(await h.chain.balanceOf(wallet)).toBe(before - 2000n);

    const again = await fetch(`${h.url}/api/fortune/membership`, {
      method: "POST",
      headers: { "sign-in-with-x": header },
    });
    expect(again.status).toBe(402);
    expect((await json(again)).error).toBe("siwx_nonce_used");
  });

  test("a SIWX sign-in from a wallet that never paid gets the payment challenge", async () => {
    const stranger = generatePrivateKey();
    const header = await h.signIn(stranger, "/api/fortune/membership", { method: "POST" });
    const res = await fetch(`${h.url}/api/fortune/membership`, {
      method: "POST",
      headers: { "sign-in-with-x": header },
    });
    expect(res.status).toBe(402);
    expect(challengeOf(res).error).toMatch(/^not_entitled/);
  });
});

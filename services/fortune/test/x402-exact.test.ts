import { json, test } from "@app/testkit";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect } from "vitest";
import {
  challengeOf,
  type FortuneHarness,
  KEYS,
  PAYEE,
  settlementOf,
  startFortune,
} from "../testing/harness.ts";

describe("x402 exact: POST /api/fortune and /api/fortune/dynamic on the local chain", () => {
  let h: FortuneHarness;
  const payer = privateKeyToAccount(KEYS.payer).address;

  test.beforeAll(async ({ db }) => {
    h = await startFortune(db);
  });
  afterAll(async () => {
    await h?.stop();
  });

  test("an unpaid call gets 402 with the x402 challenge for 0.001 of our token", async () => {
    const res = await fetch(`${h.url}/api/fortune`, { method: "POST" });
    expect(res.status).toBe(402);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const required = challengeOf(res);
    expect(required.accepts).toHaveLength(1);
    expect(required.accepts[0]).toMatchObject({
      scheme: "exact",
      network: h.chain.network,
      amount: "1000",
      asset: h.chain.asset.address,
      payTo: PAYEE,
    });
  });

  test("the official client pays 0.001 and gets a fortune; balances move by exactly that", async () => {
    const [payerBefore, payeeBefore] = [await h.chain.balanceOf(payer), await h.chain.balanceOf(PAYEE)];
    const res = await h.payingFetch(KEYS.payer)(`${h.url}/api/fortune`, { method: "POST" });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(typeof body.fortune).toBe("string");
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    const settlement = settlementOf(res);
    expect(settlement.success).toBe(true);
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await h.chain.balanceOf(payer)).toBe(payerBefore - 1000n);
    expect(await h.chain.balanceOf(PAYEE)).toBe(payeeBefore + 1000n);
    const [record] = await h.ledger.forRoute("fortune");
    expect(record).toMatchObject({
      rail: "x402",
      scheme: "exact",
      state: "settled",
      payer: payer.toLowerCase(),
    });
    expect(record?.settledAtomic).toBe(1000);
    expect(record?.reference).toBe(settlement.transaction);
  });

  test("dynamic: the price follows the validated depth and exactly that is charged", async () => {
    const before = await h.chain.balanceOf(PAYEE);
    const res = await h.payingFetch(KEYS.payer)(`${h.url}/api/fortune/dynamic`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ category: "wealth", depth: "detailed" }),
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ category: "wealth", depth: "detailed", price: "0.03" });
    expect(await h.chain.balanceOf(PAYEE)).toBe(before + 30_000n);
  });

  test("dynamic: an invalid body is a 400 before payment, unpaid and paying alike, and nothing moves", async () => {
    const before = await h.chain.balanceOf(payer);
    const probe = await fetch(`${h.url}/api/fortune/dynamic`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ category: "fame" }),
    });
    expect(probe.status).toBe(400);
    expect((await json(probe)).error).toBe("VALIDATION_FAILED");
    const brief = challengeOf(
      await fetch(`${h.url}/api/fortune/dynamic`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ category: "love" }),
      }),
    );
    const payload = await h.x402Client(KEYS.payer).createPaymentPayload(brief);
    const paying = await fetch(`${h.url}/api/fortune/dynamic`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "payment-signature": encodePaymentSignatureHeader(payload),
      },
      body: JSON.stringify({ category: "love", depth: "eternal" }),
    });
    expect(paying.status).toBe(400);
    expect(await h.chain.balanceOf(payer)).toBe(before);
  });

  test("a payment signed for a cheaper depth does not buy a dearer one", async () => {
    const brief = challengeOf(
      await fetch(`${h.url}/api/fortune/dynamic`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ category: "love", depth: "brief" }),
      }),
    );
    const payload = await h.x402Client(KEYS.payer).createPaymentPayload(brief);
    const res = await fetch(`${h.url}/api/fortune/dynamic`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "payment-signature": encodePaymentSignatureHeader(payload),
      },
      body: JSON.stringify({ category: "love", depth: "comprehensive" }),
    });
    expect(res.status).toBe(402);
    expect(challengeOf(res).error).toMatch(/^amount_below_price/);
  });

  test("twenty concurrent copies of one authorisation: one fortune, one settlement", async () => {
    const required = challengeOf(await fetch(`${h.url}/api/fortune`, { method: "POST" }));
    const header = encodePaymentSignatureHeader(
      await h.x402Client(KEYS.payer).createPaymentPayload(required),
    );
    const before = await h.chain.balanceOf(PAYEE);
    const settledBefore = (await h.ledger.forRoute("fortune")).filter((p) => p.state === "settled").length;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${h.url}/api/fortune`, { method: "POST", headers: { "payment-signature": header } }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(19);
    expect(await h.chain.balanceOf(PAYEE)).toBe(before + 1000n);
    const settled = (await h.ledger.forRoute("fortune")).filter((p) => p.state === "settled");
    expect(settled.length).toBe(settledBefore + 1);
  });

  test("Idempotency-Key: a retry gets the stored fortune and is not charged again", async () => {
    const key = `retry-${Date.now()}`;
    const fetchPaying = h.payingFetch(KEYS.payer);
    const before = await h.chain.balanceOf(payer);
    const first = await fetchPaying(`${h.url}/api/fortune`, {
      method: "POST",
      headers: { "idempotency-key": key },
    });
    expect(first.status).toBe(200);
    const firstBody = await json(first);
    const retry = await fetchPaying(`${h.url}/api/fortune`, {
      method: "POST",
      headers: { "idempotency-key": key },
    });
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await json(retry)).toEqual(firstBody);
    expect(await h.chain.balanceOf(payer)).toBe(before - 1000n);
  });

  test("a signature from another wallet, a wrong network and an expired authorisation are refused with reasons", async () => {
    const required = challengeOf(await fetch(`${h.url}/api/fortune`, { method: "POST" }));
    const payload = await h.x402Client(KEYS.payer).createPaymentPayload(required);
    const forged = await h.x402Client(KEYS.other).createPaymentPayload(required);
    const stolen = structuredClone(payload);
    (stolen.payload as { signature: string }).signature = (forged.payload as { signature: string }).signature;
    const wrongNetwork = structuredClone(payload);
    wrongNetwork.accepted.network = "eip155:8453";
    const send = (p: unknown) =>
      fetch(`${h.url}/api/fortune`, {
        method: "POST",
        headers: { "payment-signature": encodePaymentSignatureHeader(p as never) },
      });
    const bad = await send(stolen);
    expect(bad.status).toBe(402);
    expect(challengeOf(bad).error).toBeTruthy();
    const wrong = await send(wrongNetwork);
    expect(wrong.status).toBe(402);
    expect(challengeOf(wrong).error).toMatch(/^invalid_network/);
    const wrongAsset = structuredClone(payload);
    wrongAsset.accepted.asset = "0x0000000000000000000000000000000000000bad";
    const otherToken = await send(wrongAsset);
    expect(otherToken.status).toBe(402);
    expect(challengeOf(otherToken).error).toMatch(/^invalid_asset/);
    const expired = structuredClone(payload);
    (expired.payload as { authorization: { validBefore: string } }).authorization.validBefore = "1";
    const late = await send(expired);
    expect(late.status).toBe(402);
    expect(challengeOf(late).error).toBeTruthy();
  });

  test("garbage payment headers get a 402 with a reason, never a 500", async () => {
    for (const header of ["", "%%%", "bm90IGpzb24=", "e30=", "x".repeat(20_000)]) {
      const res = await fetch(`${h.url}/api/fortune`, {
        method: "POST",
        headers: { "payment-signature": header },
      });
      expect([400, 402, 431], header.slice(0, 10)).toContain(res.status);
    }
  });
});

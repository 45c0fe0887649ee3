/**
 * AUDIT of f2ff0f7's settlement sender (one `eth_sendRawTransactionSync` at a time, a locally
 * counted nonce re-read after an unknown outcome), extending `payments/stalled-chain.test.ts`:
 * two payers pay at once while mining is stalled. Both settlements must be broadcast with their own
 * nonces (503 SETTLEMENT_PENDING each), both redeem once mining resumes, each paid once, and the
 * nonce count is not left stuck for the payments after.
 */
import { LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { json, test } from "@app/testkit";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { afterAll, describe, expect } from "vitest";
import { challengeOf, type FortuneHarness, KEYS, PAYEE, startFortune } from "../../testing/harness.ts";

const FACILITATOR = LOCAL_DEV_ACCOUNTS.facilitator.address;

describe("AUDIT: two settlements at once while mining is stalled", () => {
  let h: FortuneHarness;
  const rpc = (method: string, params: unknown[] = []) =>
    h.chain.publicClient.request({ method: method as never, params: params as never });

  test.beforeAll(async ({ db }) => {
    h = await startFortune(db, { FORTUNE_SETTLEMENT_TIMEOUT_SECONDS: "2" });
    await h.fundedWallet(KEYS.other);
  });
  afterAll(async () => {
    await rpc("evm_setAutomine", [true]).catch(() => undefined);
    await h?.stop();
  });

  test("both are pending with their own transactions, both redeem once mined, each paid once, and later payments settle", async () => {
    const required = challengeOf(await fetch(`${h.url}/api/fortune`, { method: "POST" }));
    const headers = await Promise.all(
      [KEYS.payer, KEYS.other].map(async (key) =>
        encodePaymentSignatureHeader(await h.x402Client(key).createPaymentPayload(required)),
      ),
    );
    const pay = (header: string) =>
      fetch(`${h.url}/api/fortune`, { method: "POST", headers: { "payment-signature": header } });
    const payeeBefore = await h.chain.balanceOf(PAYEE);
    const sentBefore = await h.chain.publicClient.getTransactionCount({ address: FACILITATOR });

    await rpc("evm_setIntervalMining", [0]);
    await rpc("evm_setAutomine", [false]);
    let stalled: Response[];
    try {
      stalled = await Promise.all(headers.map(pay));
    } finally {
      await rpc("evm_setAutomine", [true]);
    }
    const pendings = await Promise.all(stalled.map((r) => json(r)));
    expect(stalled.map((r) => r.status)).toEqual([503, 503]);
    expect(pendings.map((p) => p.error)).toEqual(["SETTLEMENT_PENDING", "SETTLEMENT_PENDING"]);
    expect(pendings[0]?.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(pendings[1]?.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(pendings[0]?.transaction).not.toBe(pendings[1]?.transaction);

    await rpc("evm_mine");
    const retries = await Promise.all(headers.map(pay));
    expect(retries.map((r) => r.status)).toEqual([200, 200]);
    expect(await h.chain.balanceOf(PAYEE)).toBe(payeeBefore + 2000n);
    expect((await h.chain.publicClient.getTransactionCount({ address: FACILITATOR })) - sentBefore).toBe(2);

    // The nonce count is not stuck: the next payment settles at once.
    const next = await h.payingFetch(KEYS.payer)(`${h.url}/api/fortune`, { method: "POST" });
    expect(next.status).toBe(200);
    expect(await h.chain.balanceOf(PAYEE)).toBe(payeeBefore + 3000n);
  }, 120_000);
});

/**
 * AUDIT (real chain): a stored x402 response is served to whoever shows "its payer's valid
 * signature" (isSignedByPayer, checked offline). A settled EIP-3009 authorisation — every field and
 * its signature — is public in the settlement transaction's calldata. So:
 *
 * 1. With a victim's Idempotency-Key, an attacker rebuilds the victim's spent authorisation from the
 *    chain and gets the victim's stored fortune without paying.
 * 2. Worse since 5af5997 ("a retry of a spent authorisation resumes its pending payment"): for any
 *    payment that went through `pending` (stalled mining, a facilitator timeout), the rebuilt
 *    authorisation alone — no key at all — returns the victim's stored fortune, as often as asked.
 *
 * The proof of payer must be something only the payer can produce now (a fresh, unspent
 * authorisation, or a SIWX sign-in), never a signature that is on chain.
 */
import { json, test } from "@app/testkit";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { decodeFunctionData, type Hex } from "viem";
import { afterAll, describe, expect } from "vitest";
import { challengeOf, type FortuneHarness, KEYS, settlementOf, startFortune } from "../../testing/harness.ts";

describe("AUDIT: a stored x402 response served for a public, spent authorisation", () => {
  let h: FortuneHarness;
  test.beforeAll(async ({ db }) => {
    h = await startFortune(db, { FORTUNE_SETTLEMENT_TIMEOUT_SECONDS: "2" });
  });
  afterAll(async () => {
    await h?.stop();
  });

  const rpc = (method: string, params: unknown[] = []) =>
    h.chain.publicClient.request({ method: method as never, params: params as never });

  /** What anyone can do: read a settlement transaction and re-encode the authorisation it carried. */
  async function headerFromChain(transaction: Hex): Promise<string> {
    const tx = await h.chain.publicClient.getTransaction({ hash: transaction });
    const { args } = decodeFunctionData({ abi: h.chain.assetAbi, data: tx.input }) as unknown as {
      args: unknown[];
    };
    const [from, to, value, validAfter, validBefore, nonce] = args as [Hex, Hex, bigint, bigint, bigint, Hex];
    const signature =
      args.length === 7
        ? (args[6] as Hex)
        : (`0x${(args[7] as Hex).slice(2)}${(args[8] as Hex).slice(2)}${Number(args[6]).toString(16).padStart(2, "0")}` as Hex);
    const [accepted] = challengeOf(await fetch(`${h.url}/api/fortune`, { method: "POST" })).accepts;
    return encodePaymentSignatureHeader({
      x402Version: 2,
      accepted: accepted as never,
      payload: {
        signature,
        authorization: {
          from,
          to,
          value: value.toString(),
          validAfter: validAfter.toString(),
          validBefore: validBefore.toString(),
          nonce,
        },
      },
    });
  }

  test("the victim's authorisation rebuilt from chain calldata plus the key does not return the victim's fortune", async () => {
    const victim = await h.payingFetch(KEYS.payer)(`${h.url}/api/fortune`, {
      method: "POST",
      headers: { "idempotency-key": "invoice-77" },
    });
    expect(victim.status).toBe(200);
    const victimFortune = (await json(victim)).fortune;

    const stolen = await fetch(`${h.url}/api/fortune`, {
      method: "POST",
      headers: {
        "payment-signature": await headerFromChain(settlementOf(victim).transaction as Hex),
        "idempotency-key": "invoice-77",
      },
    });
    const body = await json(stolen);
    expect(body.fortune, "the victim's fortune was served from public chain data").not.toBe(victimFortune);
    expect(stolen.status).toBe(402);
  });

  test("after a pending settlement, the rebuilt authorisation alone (no key) does not return the victim's fortune", async () => {
    const required = challengeOf(await fetch(`${h.url}/api/fortune`, { method: "POST" }));
    const victimHeader = encodePaymentSignatureHeader(
      await h.x402Client(KEYS.payer).createPaymentPayload(required),
    );
    await rpc("evm_setIntervalMining", [0]);
    await rpc("evm_setAutomine", [false]);
    let stalled: Response;
    try {
      stalled = await fetch(`${h.url}/api/fortune`, {
        method: "POST",
        headers: { "payment-signature": victimHeader },
      });
    } finally {
      await rpc("evm_setAutomine", [true]);
      await rpc("evm_setIntervalMining", [1]);
    }
    expect(stalled.status).toBe(503);
    const { transaction } = await json(stalled);
    await rpc("evm_mine");
    const victim = await fetch(`${h.url}/api/fortune`, {
      method: "POST",
      headers: { "payment-signature": victimHeader },
    });
    expect(victim.status).toBe(200);
    const victimFortune = (await json(victim)).fortune;

    // Anyone: no key, no wallet, just the chain.
    const stolen = await fetch(`${h.url}/api/fortune`, {
      method: "POST",
      headers: { "payment-signature": await headerFromChain(transaction as Hex) },
    });
    const body = await json(stolen);
    expect(body.fortune, "the victim's fortune was served from public chain data").not.toBe(victimFortune);
    expect(stolen.status).toBe(402);
  });
});

/**
 * AUDIT (real chain, real in-process facilitator): mining stalls, the settlement is broadcast and
 * the facilitator answers `settlement_pending`: 503 with Retry-After. The README promises that "a
 * retry with the same authorisation … once the transaction shows the payment, gets the stored
 * response". But X402Flow.payAnew asks the facilitator to verify the authorisation *before* it
 * looks up the ledger: once the transaction is mined its nonce is used, the facilitator refuses
 * (`invalid_exact_evm_nonce_already_used`) and the payer gets a 402 — paid, never served (the
 * fake rail of the unit tests verifies everything, which hides this).
 *
 * Failed on 45b1109 (observed: 402 invalid_exact_evm_nonce_already_used); fixed meanwhile by
 * 5af5997 (a failed verification resumes an already-claimed authorisation). Kept as a guard.
 */
import { json, test } from "@app/testkit";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { afterAll, describe, expect } from "vitest";
import { challengeOf, type FortuneHarness, KEYS, PAYEE, startFortune } from "../../testing/harness.ts";

async function rpc(h: FortuneHarness, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(h.chain.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: unknown };
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

describe("AUDIT: stalled mining, then a retry with the same authorisation", () => {
  let h: FortuneHarness;
  test.beforeAll(async ({ db }) => {
    h = await startFortune(db, { FORTUNE_SETTLEMENT_TIMEOUT_SECONDS: "2" });
  });
  afterAll(async () => {
    await rpc(h, "evm_setAutomine", [true]).catch(() => undefined);
    await rpc(h, "evm_setIntervalMining", [1]).catch(() => undefined);
    await h?.stop();
  });

  test("the payer's retry with the same authorisation gets the fortune once the settlement is mined, paid once", async () => {
    const probe = await fetch(`${h.url}/api/fortune`, { method: "POST" });
    const payload = await h.x402Client(KEYS.payer).createPaymentPayload(challengeOf(probe));
    const header = encodePaymentSignatureHeader(payload);
    const pay = () =>
      fetch(`${h.url}/api/fortune`, { method: "POST", headers: { "payment-signature": header } });
    const payeeBefore = await h.chain.balanceOf(PAYEE);

    await rpc(h, "evm_setAutomine", [false]);
    await rpc(h, "evm_setIntervalMining", [0]);
    const first = await pay(); // the facilitator waits for a receipt that does not come
    expect(first.status).toBe(503);
    expect((await json(first)).error).toBe("SETTLEMENT_PENDING");

    // Mining resumes: the broadcast settlement lands.
    await rpc(h, "evm_mine");
    await rpc(h, "evm_setAutomine", [true]);
    await rpc(h, "evm_setIntervalMining", [1]);
    expect((await h.chain.balanceOf(PAYEE)) - payeeBefore).toBe(1000n);

    const retry = await pay();
    const body = await json(retry);
    expect(retry.status, JSON.stringify(body)).toBe(200);
    expect(typeof body.fortune).toBe("string");
    expect((await h.chain.balanceOf(PAYEE)) - payeeBefore).toBe(1000n);
  }, 150_000);
});

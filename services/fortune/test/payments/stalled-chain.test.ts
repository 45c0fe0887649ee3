import { json, test } from "@app/testkit";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { afterAll, describe, expect } from "vitest";
import {
  challengeOf,
  type FortuneHarness,
  KEYS,
  PAYEE,
  settlementOf,
  startFortune,
} from "../../testing/harness.ts";

describe("a settlement broadcast while mining is stalled, on the local chain", () => {
  let h: FortuneHarness;

  test.beforeAll(async ({ db }) => {
    h = await startFortune(db, { FORTUNE_SETTLEMENT_TIMEOUT_SECONDS: "2" });
  });
  afterAll(async () => {
    await h?.stop();
  });

  const rpc = (method: string, params: unknown[] = []) =>
    h.chain.publicClient.request({ method: method as never, params: params as never });

  test("is pending, never failed: 503 with its hash, then the same authorisation redeems the fortune once mined, paid once", async () => {
    const required = challengeOf(await fetch(`${h.url}/api/fortune`, { method: "POST" }));
    const header = encodePaymentSignatureHeader(
      await h.x402Client(KEYS.payer).createPaymentPayload(required),
    );
    const before = await h.chain.balanceOf(PAYEE);

    await rpc("evm_setIntervalMining", [0]);
    await rpc("evm_setAutomine", [false]);
    let stalled: Response;
    try {
      stalled = await fetch(`${h.url}/api/fortune`, {
        method: "POST",
        headers: { "payment-signature": header },
      });
    } finally {
      await rpc("evm_setAutomine", [true]);
      await rpc("evm_setIntervalMining", [1]);
    }
    expect(stalled.status).toBe(503);
    expect(stalled.headers.get("retry-after")).toBe("5");
    const pending = await json(stalled);
    expect(pending).toMatchObject({ error: "SETTLEMENT_PENDING" });
    expect(pending.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const [row] = await h.ledger.forRoute("fortune");
    expect(row).toMatchObject({ state: "pending", reference: pending.transaction });

    await rpc("evm_mine");
    const retry = await fetch(`${h.url}/api/fortune`, {
      method: "POST",
      headers: { "payment-signature": header },
    });
    expect(retry.status).toBe(200);
    expect(typeof (await json(retry)).fortune).toBe("string");
    expect(settlementOf(retry)).toMatchObject({ success: true, transaction: pending.transaction });
    expect(await h.chain.balanceOf(PAYEE)).toBe(before + 1000n);
    expect((await h.ledger.forRoute("fortune"))[0]).toMatchObject({
      state: "settled",
      reference: pending.transaction,
    });

    // The spent authorisation is public now (calldata): it redeemed its response once, no more.
    const again = await fetch(`${h.url}/api/fortune`, {
      method: "POST",
      headers: { "payment-signature": header },
    });
    expect(again.status).toBe(402);
    expect((await json(again)).error).toBe("payment_already_used");
    expect(await h.chain.balanceOf(PAYEE)).toBe(before + 1000n);
  });
});

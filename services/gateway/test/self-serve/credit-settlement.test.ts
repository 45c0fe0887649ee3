import { json, test } from "@app/testkit";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { Hex } from "viem";
import { afterEach, describe, expect } from "vitest";
import type { SelfServeGateway } from "../../testing/self-serve.ts";
import { buy, cancelAuthorization, creditBuyer } from "./credit-support.ts";

/** The official client's paying fetch, keeping the PAYMENT-SIGNATURE it sent (to present it again). */
function recordingPayer(h: SelfServeGateway, key: Hex) {
  const sent: string[] = [];
  const inner: typeof fetch = (input, init) => {
    // The client's retry is a Request (of its own realm: no `instanceof`), its first try a URL and init.
    const headers = typeof input === "object" && "headers" in input ? input.headers : init?.headers;
    const header = new Headers(headers).get("payment-signature");
    if (header) sent.push(header);
    return fetch(input, init);
  };
  return { pay: h.payingFetch(key, inner), sent };
}

describe("credit is bought once per settled payment, and never before it settles", () => {
  const buyer = creditBuyer();
  afterEach(() => {
    buyer.h.settleGate = undefined;
  });

  const paidCredits = () =>
    buyer.h.db.query<{ reference: string; tx: string }>(
      `SELECT settlement_reference AS reference, transaction_hash AS tx FROM gateway.ledger
       WHERE account_id = $1 AND settlement_reference IS NOT NULL ORDER BY id`,
      [buyer.accountId],
    );

  test("the same payment presented again credits nothing more: 402 payment_already_used", async () => {
    const { h, wallet, balance } = buyer;
    const { pay, sent } = recordingPayer(h, wallet);
    const first = await pay(`${h.url}/v1/credits`, buy("0.50"));
    expect(first.status).toBe(200);
    const start = await balance();
    const again = await fetch(`${h.url}/v1/credits`, buy("0.50", { "payment-signature": sent[0] as string }));
    expect(again.status).toBe(402);
    expect(await json(again)).toMatchObject({ error: "payment_already_used", message: expect.any(String) });
    expect(await balance()).toBe(start);
    expect(await paidCredits()).toHaveLength(1);
  });

  test("concurrent copies of one payment credit it once", async () => {
    const { h, wallet, balance } = buyer;
    const challenge = await fetch(`${h.url}/v1/credits`, buy("0.25"));
    const required = decodePaymentRequiredHeader(challenge.headers.get("payment-required") as string);
    const header = encodePaymentSignatureHeader(await h.x402Client(wallet).createPaymentPayload(required));
    const start = await balance();
    const credits = (await paidCredits()).length;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        fetch(`${h.url}/v1/credits`, buy("0.25", { "payment-signature": header })),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 402, 402, 402, 402, 402]);
    expect(await balance()).toBe(start + 250_000n);
    expect(await paidCredits()).toHaveLength(credits + 1);
  });

  test("a payment that fails to settle credits nothing: 402 settlement_failed with the platform's error body", async () => {
    const { h, wallet, address, accountId, balance } = buyer;
    const start = await balance();
    const credits = (await paidCredits()).length;
    h.settleGate = async (settle, { payload }) => {
      // The payer cancels its authorisation after the gateway verified it: the chain refuses it.
      const { from, nonce } = (payload.payload as { authorization: { from: Hex; nonce: Hex } }).authorization;
      await cancelAuthorization(h, wallet, from, nonce);
      return settle();
    };
    const before = await h.chain.balanceOf(address);
    const res = await h.payingFetch(wallet)(`${h.url}/v1/credits`, buy("0.50"));
    expect(res.status).toBe(402);
    expect(await json(res)).toMatchObject({
      error: "settlement_failed",
      message: expect.stringContaining("nothing was credited"),
    });
    expect(await balance()).toBe(start);
    expect(await paidCredits()).toHaveLength(credits);
    expect(await h.chain.balanceOf(address)).toBe(before);
    const [failed] = await h.db.query<{ state: string }>(
      "SELECT state FROM gateway.credit_payments WHERE account_id = $1 ORDER BY created_at DESC LIMIT 1",
      [accountId],
    );
    expect(failed?.state).toBe("failed");
  });

  test("nothing is credited before the settlement: while it is under way the balance and ledger are as before", async () => {
    const { h, wallet, accountId, balance } = buyer;
    const start = await balance();
    const credits = (await paidCredits()).length;
    const during: { balance: bigint; credits: number; state?: string }[] = [];
    h.settleGate = async (settle) => {
      const [payment] = await h.db.query<{ state: string }>(
        "SELECT state FROM gateway.credit_payments WHERE account_id = $1 ORDER BY created_at DESC LIMIT 1",
        [accountId],
      );
      during.push({ balance: await balance(), credits: (await paidCredits()).length, state: payment?.state });
      return settle();
    };
    const res = await h.payingFetch(wallet)(`${h.url}/v1/credits`, buy("0.20"));
    expect(res.status).toBe(200);
    expect(during).toEqual([{ balance: start, credits, state: "pending" }]);
    expect(await balance()).toBe(start + 200_000n);
    const rows = await paidCredits();
    expect(rows).toHaveLength(credits + 1);
    expect(rows.at(-1)?.tx).toBe((await json(res)).transaction);
  });

  test("a keyed retry gets the stored answer and credits nothing more; the key with another amount is 422", async () => {
    const { h, wallet, balance } = buyer;
    const { pay, sent } = recordingPayer(h, wallet);
    const first = await pay(`${h.url}/v1/credits`, buy("0.10", { "idempotency-key": "top-up-1" }));
    expect(first.status).toBe(200);
    const answer = await first.text();
    const after = await balance();
    const retry = await fetch(
      `${h.url}/v1/credits`,
      buy("0.10", { "idempotency-key": "top-up-1", "payment-signature": sent[0] as string }),
    );
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.text()).toBe(answer);
    expect(await balance()).toBe(after);
    const other = await h.payingFetch(wallet)(
      `${h.url}/v1/credits`,
      buy("0.20", { "idempotency-key": "top-up-1" }),
    );
    expect(other.status).toBe(422);
    expect(await balance()).toBe(after);
  });

  test("a settlement sent and not confirmed is 503, then credited once by the reconciler, and its key answered", async () => {
    const { h, wallet, balance } = buyer;
    const start = await balance();
    h.settleGate = async (settle) => {
      const settled = await settle();
      // The facilitator broadcast it but saw no receipt in time: it reports the transaction as pending.
      return { ...settled, success: false, errorReason: "settlement_pending" };
    };
    const { pay, sent } = recordingPayer(h, wallet);
    const res = await pay(`${h.url}/v1/credits`, buy("0.40", { "idempotency-key": "pending-1" }));
    h.settleGate = undefined;
    expect(res.status).toBe(503);
    const pending = await json(res);
    expect(pending).toMatchObject({ error: "SETTLEMENT_PENDING", transaction: expect.stringMatching(/^0x/) });
    expect(res.headers.get("retry-after")).toBe("5");
    expect(await balance()).toBe(start);
    const retry = () =>
      fetch(
        `${h.url}/v1/credits`,
        buy("0.40", { "idempotency-key": "pending-1", "payment-signature": sent[0] as string }),
      );
    expect((await retry()).status).toBe(409);

    // Its request is long gone: the reconciler asks the chain.
    await h.db.query(
      "UPDATE gateway.credit_payments SET updated_at = now() - interval '2 minutes' WHERE state = 'pending'",
    );
    await h.db.query(
      "UPDATE edge.idempotency_keys SET created_at = now() - interval '2 minutes' WHERE namespace = 'gateway-credits' AND state = 'pending'",
    );
    expect(await h.reconciler.reconcile()).toBe(1);
    expect(await balance()).toBe(start + 400_000n);
    expect((await paidCredits()).at(-1)?.tx).toBe(pending.transaction);
    expect(await h.reconciler.reconcile()).toBe(0);
    expect(await balance()).toBe(start + 400_000n);

    const answered = await retry();
    expect(answered.status).toBe(200);
    expect(answered.headers.get("idempotent-replayed")).toBe("true");
    expect(await json(answered)).toMatchObject({
      credited: { amount: "0.4" },
      transaction: pending.transaction,
    });
  });

  test("an MPP credential presented twice credits once", async () => {
    const { h, wallet, balance } = buyer;
    const probe = await fetch(`${h.url}/v1/credits`, buy("0.50"));
    const credential = await h.mppClient(wallet).createCredential(probe);
    const first = await fetch(`${h.url}/v1/credits`, buy("0.50", { authorization: credential }));
    expect(first.status).toBe(200);
    const after = await balance();
    const again = await fetch(`${h.url}/v1/credits`, buy("0.50", { authorization: credential }));
    expect(again.status).toBe(402);
    expect((await json(again)).error).toBe("mpp_credential_already_presented");
    expect(await balance()).toBe(after);
  });

  test("an MPP credential for another amount is refused and credits nothing", async () => {
    const { h, wallet, balance } = buyer;
    const probe = await fetch(`${h.url}/v1/credits`, buy("0.01"));
    const credential = await h.mppClient(wallet).createCredential(probe);
    const start = await balance();
    const res = await fetch(`${h.url}/v1/credits`, buy("50", { authorization: credential }));
    expect(res.status).toBe(402);
    expect((await json(res)).error).toMatch(/^mpp_/);
    expect(await balance()).toBe(start);
  });
});

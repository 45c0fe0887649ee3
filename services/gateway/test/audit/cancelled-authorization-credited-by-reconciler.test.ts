import { json, test } from "@app/testkit";
import type { Hex } from "viem";
import { describe, expect } from "vitest";
import { buy, cancelAuthorization, creditBuyer } from "../self-serve/credit-support.ts";

describe("a credit whose settlement went unanswered, its authorisation then cancelled by the payer", () => {
  const buyer = creditBuyer();

  test("is never credited by the reconciler: a cancelled nonce is not a payment received", async () => {
    const { h, wallet, address, accountId, balance } = buyer;
    let authorization: { from: Hex; nonce: Hex } | undefined;
    h.settleGate = async (_settle, { payload }) => {
      // The facilitator never answers (a timeout, a lost connection): the gateway answers 503.
      authorization = (payload.payload as { authorization: { from: Hex; nonce: Hex } }).authorization;
      throw new Error("the facilitator did not answer");
    };
    const paidBefore = await h.chain.balanceOf(address);
    const res = await h.payingFetch(wallet)(`${h.url}/v1/credits`, buy("0.50"));
    h.settleGate = undefined;
    expect(res.status).toBe(503);
    expect((await json(res)).error).toBe("SETTLEMENT_PENDING");
    expect(authorization).toBeDefined();

    // The payer, seeing the 503, cancels the authorisation it signed: nothing can ever be paid with it.
    await cancelAuthorization(h, wallet, authorization?.from as Hex, authorization?.nonce as Hex);

    // Later the reconciler asks the chain how the payment ended.
    await h.db.query(
      "UPDATE gateway.credit_payments SET updated_at = now() - interval '2 minutes' WHERE state = 'pending'",
    );
    await h.reconciler.reconcile();

    expect(await h.chain.balanceOf(address)).toBe(paidBefore);
    const [payment] = await h.db.query<{ state: string }>(
      "SELECT state FROM gateway.credit_payments WHERE account_id = $1",
      [accountId],
    );
    // Not one token left the wallet: nothing may be credited for it.
    expect({ balance: await balance(), credited: payment?.state === "credited" }).toEqual({
      balance: 0n,
      credited: false,
    });
  });
});

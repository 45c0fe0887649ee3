import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { buy, creditBuyer } from "../self-serve/credit-support.ts";

describe("a credit paid on chain whose credit the database fails to write", () => {
  const buyer = creditBuyer();

  test("is answered 503 SETTLEMENT_PENDING (paid, credited later), not a 500; then credited once", async () => {
    const { h, wallet, address, accountId } = buyer;
    const payments = h.selfServe.payments;
    const credit = payments.credit.bind(payments);
    let failures = 0;
    payments.credit = async (...args) => {
      if (failures === 0) {
        failures += 1;
        // The database drops the connection just as the settled payment is credited.
        throw Object.assign(new Error("Connection terminated unexpectedly"), { code: "57P01" });
      }
      return credit(...args);
    };
    const paidBefore = await h.chain.balanceOf(address);
    let res: Response;
    try {
      res = await h.payingFetch(wallet)(
        `${h.url}/v1/credits`,
        buy("0.30", { "idempotency-key": "db-drop-1" }),
      );
    } finally {
      payments.credit = credit;
    }
    const body = await json(res);
    expect(await h.chain.balanceOf(address)).toBe(paidBefore - 300_000n);
    // The payer's money moved: the answer must say it will be credited, not "something went wrong".
    expect({ status: res.status, error: body.error }).toEqual({ status: 503, error: "SETTLEMENT_PENDING" });

    await h.db.query(
      "UPDATE gateway.credit_payments SET updated_at = now() - interval '2 minutes' WHERE state = 'pending'",
    );
    await h.reconciler.reconcile();
    await h.reconciler.reconcile();
    const [row] = await h.db.query<{ b: string }>(
      "SELECT balance_micro::text AS b FROM gateway.accounts WHERE id = $1",
      [accountId],
    );
    expect(row?.b).toBe("300000");
  });
});

import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { buy, creditBuyer } from "./credit-support.ts";

describe("an MPP charge settled whose credit the database fails to write", () => {
  const buyer = creditBuyer();

  test("is answered 503 SETTLEMENT_PENDING, then credited once by the reconciler and its key answered", async () => {
    const { h, wallet, accountId } = buyer;
    const payments = h.selfServe.payments;
    const credit = payments.credit.bind(payments);
    payments.credit = async () => {
      throw Object.assign(new Error("Connection terminated unexpectedly"), { code: "57P01" });
    };
    let res: Response;
    try {
      const probe = await fetch(`${h.url}/v1/credits`, buy("0.20"));
      const credential = await h.mppClient(wallet).createCredential(probe);
      res = await fetch(
        `${h.url}/v1/credits`,
        buy("0.20", { authorization: credential, "idempotency-key": "mpp-db-drop" }),
      );
    } finally {
      payments.credit = credit;
    }
    const body = await json(res);
    expect({ status: res.status, error: body.error }).toEqual({ status: 503, error: "SETTLEMENT_PENDING" });
    expect(JSON.stringify(body)).not.toContain("Connection terminated");

    await h.db.query(
      "UPDATE gateway.credit_payments SET updated_at = now() - interval '2 minutes' WHERE state = 'pending'",
    );
    await h.db.query(
      "UPDATE edge.idempotency_keys SET created_at = now() - interval '2 minutes' WHERE namespace = 'gateway-credits' AND state = 'pending'",
    );
    expect(await h.reconciler.reconcile()).toBe(1);
    expect(await h.reconciler.reconcile()).toBe(0);
    const [row] = await h.db.query<{ b: string }>(
      "SELECT balance_micro::text AS b FROM gateway.accounts WHERE id = $1",
      [accountId],
    );
    expect(row?.b).toBe("200000");
    const [key] = await h.db.query<{ state: string }>(
      "SELECT state FROM edge.idempotency_keys WHERE namespace = 'gateway-credits' AND idempotency_key = 'mpp-db-drop'",
    );
    expect(key?.state).toBe("done");
  });
});

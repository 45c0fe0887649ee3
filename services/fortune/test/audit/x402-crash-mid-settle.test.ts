/**
 * AUDIT: a process killed while the facilitator settles (the transaction broadcast, the answer
 * never read) leaves a `verified` row and a pending Idempotency-Key. The reconciler later finds the
 * authorisation used on chain and marks the row `settled` — but the response the payment bought
 * was never stored (only `ledger.pending()` stores it, and that is only called after settle()
 * returns). The payer's retry with the same key and authorisation gets 409 (then, once the key is
 * freed after 10 minutes, a new charge). Paid, never served; retried, charged twice.
 */
import { LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { json, test } from "@app/testkit";
import type { PaymentPayload, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { describe, expect } from "vitest";
import { FakeX402Rail, signedPaymentHeader } from "../../src/payments/x402-rail.fake.ts";
import { gateOn } from "../payments/gate-harness.ts";

const PAYER_KEY = LOCAL_DEV_ACCOUNTS.payer.privateKey;

/** A facilitator that broadcasts the settlement and then never answers (the process dies waiting). */
class HangingSettleRail extends FakeX402Rail {
  hang = true;
  override async settle(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    atomic: bigint,
  ): Promise<SettleResponse> {
    if (!this.hang) return super.settle(payload, requirements, atomic);
    this.settlements += 1;
    return new Promise<SettleResponse>(() => undefined);
  }
}

const pay = (header: string, key: string) => ({
  method: "POST",
  headers: { "payment-signature": header, "idempotency-key": key },
});

describe("AUDIT: a process killed mid-settlement", () => {
  test("the payer who retries with the same Idempotency-Key gets the fortune the settled payment bought", async ({
    db,
  }) => {
    const rail = new HangingSettleRail();
    const { app, ledger, reconciler } = await gateOn(db, rail);
    const header = await signedPaymentHeader(rail, "exact", 1000n, PAYER_KEY);

    // The first request reaches settle() and the process "dies" there: never awaited.
    void app.request("/api/fortune", pay(header, "crash-1"));
    await expect.poll(() => rail.settlements).toBe(1);
    expect(await ledger.forRoute("fortune")).toMatchObject([{ state: "verified" }]);

    // A new process: 6 minutes later the reconciler finds the authorisation used on chain.
    await db.exec(`UPDATE fortune.payments SET updated_at = now() - interval '6 minutes';
      UPDATE edge.idempotency_keys SET created_at = now() - interval '6 minutes';`);
    rail.hang = false;
    rail.chainSays = "settled";
    await reconciler.sweep();
    expect(await ledger.forRoute("fortune")).toMatchObject([{ state: "settled" }]);

    // The payer retries exactly as the README says: same key, same authorisation.
    const retry = await app.request("/api/fortune", pay(header, "crash-1"));
    expect(retry.status).toBe(200);
    expect(typeof (await json(retry)).fortune).toBe("string");
    expect(rail.settlements).toBe(1);
  });

  test("once the key is freed, a retry with the same key and a fresh authorisation is not charged again", async ({
    db,
  }) => {
    const rail = new HangingSettleRail();
    const { app, ledger, reconciler } = await gateOn(db, rail);
    const header = await signedPaymentHeader(rail, "exact", 1000n, PAYER_KEY);
    void app.request("/api/fortune", pay(header, "crash-2"));
    await expect.poll(() => rail.settlements).toBe(1);

    await db.exec(`UPDATE fortune.payments SET updated_at = now() - interval '11 minutes';
      UPDATE edge.idempotency_keys SET created_at = now() - interval '11 minutes';`);
    rail.hang = false;
    rail.chainSays = "settled";
    await reconciler.sweep();
    await reconciler.sweep();

    const retry = await app.request(
      "/api/fortune",
      pay(await signedPaymentHeader(rail, "exact", 1000n, PAYER_KEY), "crash-2"),
    );
    expect(retry.status).toBe(200);
    // One fortune, paid once: the retry must get the stored response, not a second settlement.
    expect(rail.settlements).toBe(1);
    expect((await ledger.forRoute("fortune")).filter((p) => p.state === "settled")).toHaveLength(1);
  });
});

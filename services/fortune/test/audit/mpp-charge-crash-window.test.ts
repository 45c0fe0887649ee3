/**
 * AUDIT: an MPP charge that lands on chain while the process dies (or its ledger write fails)
 * before the payment is recorded: the payer paid, no ledger row said so, and the Idempotency-Key
 * stayed pending until it was freed, so a retry paid again. The charge is now recorded `pending`
 * with the response it buys before it is sent, and the reconciler finishes it from the chain.
 */

import type { MppRail } from "@app/payments";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { MPP_CHARGE_GIVE_UP_MS } from "../../src/payments/mpp-pending-charges.ts";
import { FakeX402Rail } from "../../src/payments/x402-rail.fake.ts";
import { gateOn } from "../payments/gate-harness.ts";

const PAYER = "0x00000000000000000000000000000000000000c4";

/** An MPP rail whose charge lands on the "chain" and then, while `die` is set, never answers. */
function dyingMpp() {
  let credentials = 0;
  const rail = {
    network: "eip155:4217",
    currency: "0x20c0000000000000000000000000000000000000" as const,
    charges: 0,
    die: true,
    /** What the chain says of a charge's transaction. */
    chainSays: "settled" as "settled" | "failed" | "pending",
    /** Each request presents a new signed transaction (a fresh credential). */
    async payerOf() {
      credentials += 1;
      return { payer: PAYER, credentialId: `0x${credentials.toString(16).padStart(64, "0")}`, mode: "pull" };
    },
    async isUnspent() {
      return true;
    },
    async challenges() {
      return ['Payment id="x", realm="fortune", method="tempo", intent="charge"'];
    },
    async chargeOutcome() {
      return rail.chainSays;
    },
    async charge(request: Request) {
      rail.charges += 1;
      if (rail.die) return new Promise<never>(() => undefined);
      void request;
      return {
        kind: "paid" as const,
        reference: `0x${"ee".repeat(32)}`,
        network: rail.network,
        currency: rail.currency,
        receiptHeaders: { "Payment-Receipt": "receipt" },
      };
    },
  };
  return rail;
}

const pay = (key: string) => ({
  method: "POST",
  headers: { authorization: "Payment eyJ9", "idempotency-key": key },
});

const age = (minutes: number) =>
  `UPDATE fortune.payments SET updated_at = now() - interval '${minutes} minutes',
     created_at = now() - interval '${minutes} minutes';
   UPDATE edge.idempotency_keys SET created_at = now() - interval '${minutes} minutes';`;

describe("AUDIT: a process that dies after an MPP charge lands", () => {
  test("the charge is on the ledger, and the payer's retry with the same key gets what it bought without paying again", async ({
    db,
  }) => {
    const mpp = dyingMpp();
    const { app, ledger, reconciler } = await gateOn(db, new FakeX402Rail(), mpp as unknown as MppRail);

    void app.request("/api/fortune", pay("mpp-crash-1"));
    await expect.poll(() => mpp.charges).toBe(1);
    const [recorded] = await ledger.forRoute("fortune");
    expect(recorded).toMatchObject({
      rail: "mpp",
      state: "pending",
      payer: PAYER,
      idempotencyKey: "mpp-crash-1",
    });
    expect(JSON.parse(recorded?.response?.body ?? "null")).toHaveProperty("fortune");

    // A new process, a minute later: the reconciler asks the chain.
    mpp.die = false;
    await db.exec(age(1));
    await reconciler.sweep();
    expect(await ledger.forRoute("fortune")).toMatchObject([{ state: "settled" }]);

    const retry = await app.request("/api/fortune", pay("mpp-crash-1"));
    expect(retry.status).toBe(200);
    expect(await retry.text()).toBe(recorded?.response?.body);
    expect(retry.headers.get("payment-receipt")).toBeTruthy();
    expect(mpp.charges).toBe(1);
  });

  test("a charge the chain reverted fails, and its key is freed for a retry that pays once", async ({
    db,
  }) => {
    const mpp = dyingMpp();
    const { app, ledger, reconciler } = await gateOn(db, new FakeX402Rail(), mpp as unknown as MppRail);
    void app.request("/api/fortune", pay("mpp-crash-2"));
    await expect.poll(() => mpp.charges).toBe(1);

    mpp.die = false;
    mpp.chainSays = "failed";
    await db.exec(age(11));
    await reconciler.sweep();
    await reconciler.sweep();
    expect(await ledger.forRoute("fortune")).toMatchObject([
      { state: "failed", failureReason: "mpp_charge_reverted" },
    ]);

    const retry = await app.request("/api/fortune", pay("mpp-crash-2"));
    expect(retry.status).toBe(200);
    expect(mpp.charges).toBe(2);
    const states = (await ledger.forRoute("fortune")).map((payment) => payment.state).sort();
    expect(states).toEqual(["failed", "settled"]);
  });

  test("a charge the chain never saw stays pending until it is given up", async ({ db }) => {
    const mpp = dyingMpp();
    const { app, ledger, reconciler } = await gateOn(db, new FakeX402Rail(), mpp as unknown as MppRail);
    void app.request("/api/fortune", pay("mpp-crash-3"));
    await expect.poll(() => mpp.charges).toBe(1);
    mpp.chainSays = "pending";

    await db.exec(age(1));
    await reconciler.sweep();
    expect(await ledger.forRoute("fortune")).toMatchObject([{ state: "pending" }]);
    const during = await app.request("/api/fortune", pay("mpp-crash-3"));
    expect(during.status).toBe(409);

    await db.exec(age(MPP_CHARGE_GIVE_UP_MS / 60_000 + 1));
    await reconciler.sweep();
    expect(await ledger.forRoute("fortune")).toMatchObject([
      { state: "failed", failureReason: "mpp_charge_never_landed" },
    ]);
  });
});

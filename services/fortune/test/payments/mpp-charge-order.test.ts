import { createServiceApp } from "@app/core";
import type { MppRail } from "@app/payments";
import { json, silentLogger, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeX402Rail } from "../../src/payments/x402-rail.fake.ts";
import { gateOn } from "./gate-harness.ts";

const PAYER = "0x00000000000000000000000000000000000000c3";

/** An MPP rail that names a payer for any credential and counts the charges it makes. */
function countingMpp() {
  const rail = {
    charges: 0,
    async challenges() {
      return ['Payment id="x", realm="fortune", method="tempo", intent="charge"'];
    },
    async payerOf() {
      return { payer: PAYER, credentialId: `0x${"cd".repeat(32)}` };
    },
    async charge() {
      rail.charges += 1;
      return {
        kind: "paid" as const,
        reference: `0x${rail.charges.toString(16).padStart(64, "0")}`,
        network: "eip155:1337",
        currency: "0x20c0000000000000000000000000000000000000",
        receiptHeaders: { "Payment-Receipt": "receipt" },
      };
    },
  };
  return rail;
}

describe("an MPP charge buys exactly one served response", () => {
  test("a handler that fails charges nothing and leaves the Idempotency-Key free for a retry", async ({
    db,
  }) => {
    const mpp = countingMpp();
    const { gate, ledger } = await gateOn(db, new FakeX402Rail(), mpp as unknown as MppRail);
    const app = createServiceApp({
      name: "t",
      title: "T",
      version: "1",
      logger: silentLogger(),
      checkReady: async () => undefined,
    });
    let fail = true;
    app.post("/flaky", (c) =>
      gate.handle(
        c,
        {
          route: "flaky",
          path: "/flaky",
          description: "Fails once",
          mpp: { priceUsd: "0.001" },
          request: null,
        },
        async () => {
          if (fail) throw new Error("the text model is down");
          return { ok: true };
        },
      ),
    );
    const call = () =>
      app.request("/flaky", {
        method: "POST",
        headers: { authorization: "Payment eyJ9", "idempotency-key": "flaky-1" },
      });
    expect((await call()).status).toBe(500);
    expect(mpp.charges).toBe(0);
    expect(await ledger.forRoute("flaky")).toEqual([]);

    fail = false;
    const retry = await call();
    expect(retry.status).toBe(200);
    expect(await json(retry)).toEqual({ ok: true });
    expect(mpp.charges).toBe(1);
    expect(await ledger.forRoute("flaky")).toMatchObject([
      { state: "settled", payer: PAYER, idempotencyKey: "flaky-1" },
    ]);
  });
});

describe("a refused MPP charge", () => {
  test("leaves its credential usable: presented again, it is charged once, on one ledger row", async ({
    db,
  }) => {
    const mpp = countingMpp();
    let refuse = true;
    const paid = mpp.charge;
    const rail = {
      ...mpp,
      async charge() {
        if (!refuse) return paid();
        refuse = false;
        return {
          kind: "refused" as const,
          refusal: { reason: "mpp_verification_failed", message: "The RPC did not answer." },
        };
      },
    };
    const { app, ledger } = await gateOn(db, new FakeX402Rail(), rail as unknown as MppRail);
    const call = () =>
      app.request("/api/fortune", { method: "POST", headers: { authorization: "Payment eyJ9" } });
    expect((await call()).status).toBe(402);
    expect(await ledger.forRoute("fortune")).toMatchObject([
      { state: "failed", failureReason: "mpp_verification_failed" },
    ]);
    const again = await call();
    expect(again.status).toBe(200);
    expect(mpp.charges).toBe(1);
    expect(await ledger.forRoute("fortune")).toMatchObject([{ state: "settled", failureReason: null }]);
  });
});

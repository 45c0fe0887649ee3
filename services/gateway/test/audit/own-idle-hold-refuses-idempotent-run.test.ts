import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import {
  configuredPrices,
  MARKETS_EVENT,
  marketsRun,
  SHOP_AVAILABILITY,
} from "../policies/policy-support.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";

const ONE_USD = 1_000_000n;

const shopRun = {
  provider: "shop",
  endpoint: "/api/shops/agent-availability",
  method: "GET",
  input: { queryParams: { service: "haircut", from: "2026-12-01", days: 1, partySize: 1 } },
};

/**
 * A run charged from a hold makes its instance hold half the account's balance
 * (`spend-holds.ts` TAKE: up to half of what is left) for a second after its last run. A held run
 * refused for want of it gets this instance's other holds back first (`HeldSpend.charge`,
 * `giveBackUnused`; README: "so is the part of this instance's other holds of an account that a
 * refused run of that account would need"), but an idempotent run is charged by its own
 * statement (`run-charge.ts`), which counts every hold as spent and never asks this instance to
 * give its own back: the account, with 0.99 USD and nothing running, is refused a 0.60 run with a
 * 402 that calls its balance 0.50.
 */
describe("an idempotent run after a held run of the same account, on the same instance", () => {
  test("is not refused for the balance this instance holds and does not use", async ({ db }) => {
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    const h = gatewayHarness(db, {
      upstream,
      toolPrices: configuredPrices({ [MARKETS_EVENT]: "0.01", [SHOP_AVAILABILITY]: "0.60" }),
    });
    try {
      const owner = await openAccount(db, ONE_USD);
      const held = await postJson(h.app, "/v1/run", marketsRun(), bearer(owner.key));
      expect(held.status).toBe(200);
      const headers = { ...bearer(owner.key), "x-upstream-key": "shop-key", "idempotency-key": "shop-once" };
      const idempotent = await postJson(h.app, "/v1/run", shopRun, headers);
      const body = (await json(idempotent)) as { error?: string; balance?: unknown };
      expect({ status: idempotent.status, error: body.error, balance: body.balance }).toMatchObject({
        status: 200,
        balance: { amount: "0.39" },
      });
    } finally {
      await h.close();
    }
  });
});

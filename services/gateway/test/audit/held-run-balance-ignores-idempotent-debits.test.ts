import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { balanceOf } from "../../src/store/runs.ts";
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
 * A held run's envelope shows `HeldSpend.balanceOf`: the settled balance *HeldSpend's own
 * statements* last returned, less what its runs took (`held-spend.ts` `settled`, fed only by
 * `observe` in its top-ups and settles). An idempotent run of the same account on the same
 * instance debits the balance by its own statement and tells the instance's `BalanceView`
 * (`deps.balances`), which `HeldSpend` never reads: the next held run, served from the hold
 * without a statement, shows the balance from before that debit, well above the real one.
 */
describe("a held run after an idempotent run of the same account, on the same instance", () => {
  test("shows a balance no higher than the account really has", async ({ db }) => {
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    const h = gatewayHarness(db, {
      upstream,
      toolPrices: configuredPrices({ [MARKETS_EVENT]: "0.01", [SHOP_AVAILABILITY]: "0.40" }),
    });
    try {
      const owner = await openAccount(db, ONE_USD);
      expect((await postJson(h.app, "/v1/run", marketsRun(), bearer(owner.key))).status).toBe(200);
      const headers = { ...bearer(owner.key), "x-upstream-key": "shop-key", "idempotency-key": "shop-once" };
      const idempotent = await postJson(h.app, "/v1/run", shopRun, headers);
      expect(idempotent.status).toBe(200);
      const next = await postJson(h.app, "/v1/run", marketsRun("next"), bearer(owner.key));
      expect(next.status).toBe(200);
      const shown = (await json(next)) as { balance: { amount: string } };
      await h.deps.held.flush();
      const real = await balanceOf(db, owner.accountId);
      expect({ shown: shown.balance.amount, real: real.toString() }).toEqual({
        shown: "0.58",
        real: "580000",
      });
    } finally {
      await h.close();
    }
  });
});

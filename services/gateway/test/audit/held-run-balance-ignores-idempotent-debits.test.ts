import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { balanceOf } from "../../src/store/runs.ts";
import { marketsRun } from "../policies/policy-support.ts";
import { bearer, postJson } from "../support/harness.ts";
import { idempotentShopRun, withPricedShop } from "./hold-audit-support.ts";

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
    await withPricedShop(db, "0.40", async (h, owner) => {
      expect((await postJson(h.app, "/v1/run", marketsRun(), bearer(owner.key))).status).toBe(200);
      const idempotent = await idempotentShopRun(h, owner.key);
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
    });
  });
});

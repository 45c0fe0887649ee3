import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { marketsRun } from "../policies/policy-support.ts";
import { bearer, postJson } from "../support/harness.ts";
import { idempotentShopRun, withPricedShop } from "./hold-audit-support.ts";

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
    await withPricedShop(db, "0.60", async (h, owner) => {
      const held = await postJson(h.app, "/v1/run", marketsRun(), bearer(owner.key));
      expect(held.status).toBe(200);
      const idempotent = await idempotentShopRun(h, owner.key);
      const body = (await json(idempotent)) as { error?: string; balance?: unknown };
      expect({ status: idempotent.status, error: body.error, balance: body.balance }).toMatchObject({
        status: 200,
        balance: { amount: "0.39" },
      });
    });
  });
});

import type { Database } from "@app/db";
import { openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { takeHold } from "../../src/store/spend-holds.ts";
import { keyWithPolicy, MARKETS_EVENT } from "../policies/policy-support.ts";
import { openAccount } from "../support/harness.ts";

const CENT = 10_000n;

/**
 * 40 holds of one cent each for an account's key, each its own hold, taken at once on two more
 * connections to `db` (they race, as instances do); what each take answered.
 */
async function fortyCentHoldsAtOnce(db: Database, accountId: string, keyId: string) {
  const handles = [await openSecondHandle(db), await openSecondHandle(db)];
  try {
    return await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        takeHold(handles[n % 2] ?? db, {
          holdId: `hold_${n}`,
          known: false,
          accountId,
          keyId,
          tool: MARKETS_EVENT,
          priceMicro: CENT,
          wantMicro: CENT,
        }),
      ),
    );
  } finally {
    await Promise.all(handles.map((handle) => handle.close()));
  }
}

describe("holds on PostgreSQL, taken at once on many connections", () => {
  test("40 holds of one price each against a cap of ten prices: ten are held, thirty refused, none past the cap", async ({
    db,
  }) => {
    const owner = await openAccount(db, 10_000_000n);
    const capped = await keyWithPolicy(db, owner, { dailyCapMicro: 10n * CENT });
    const taken = await fortyCentHoldsAtOnce(db, owner.accountId, capped.keyId);
    expect(taken.filter((hold) => hold.kind === "held")).toHaveLength(10);
    expect(taken.filter((hold) => hold.kind === "capped")).toHaveLength(30);
    const [counted] = await db.query<{ held: string }>(
      `SELECT held_micro::text AS held FROM gateway.key_daily_spend WHERE key_id = $1 AND tool = ''`,
      [capped.keyId],
    );
    expect(counted?.held).toBe((10n * CENT).toString());
  });

  test("40 holds of one price each against a balance of ten prices: ten are held, none past the balance", async ({
    db,
  }) => {
    const owner = await openAccount(db, 10n * CENT);
    const taken = await fortyCentHoldsAtOnce(db, owner.accountId, owner.keyId);
    expect(taken.filter((hold) => hold.kind === "held")).toHaveLength(10);
    expect(taken.filter((hold) => hold.kind === "insufficient")).toHaveLength(30);
  });
});

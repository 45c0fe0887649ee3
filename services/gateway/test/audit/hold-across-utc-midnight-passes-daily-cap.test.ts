import { fakeClock, silentLogger, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { HeldSpend } from "../../src/runner/held-spend.ts";
import { keyWithPolicy } from "../policies/policy-support.ts";
import { openAccount } from "../support/harness.ts";
import { CENT, centRun, finishedRecord } from "./hold-audit-support.ts";

/**
 * A hold counts its runs on the UTC day it was taken (`spend_holds.day`); the instance only learns
 * that the day changed when a top-up answers `stale` (`held-spend.ts` charge: a run whose price
 * fits in the hold is served without any check of the day). So after midnight the runs served
 * from yesterday's hold (up to half of yesterday's room) count on yesterday, and today's cap is
 * then spent in full on top of them: the key's runs of today cost more than its daily cap.
 */
describe("a hold taken before UTC midnight, used after it", () => {
  test("the key's runs of the new day stay within its daily cap", async ({ db }) => {
    const owner = await openAccount(db, 10_000_000n);
    const capped = await keyWithPolicy(db, owner, { dailyCapMicro: 10n * CENT });
    const clock = fakeClock(new Date().toISOString());
    const held = new HeldSpend(db, silentLogger(), { flushMs: 60_000, clock });
    const first = centRun(owner.accountId, capped.keyId, "run_before_midnight");
    const started = await held.charge(first);
    if (started.kind !== "started") throw new Error("the first run was refused");
    held.finish(started.charge, finishedRecord(first));
    await held.flush(); // settled; the hold (half the cap) renewed
    // UTC midnight passes, for the instance's clock and the database's: what was taken and spent
    // so far belongs to yesterday.
    const now = clock.now();
    clock.set(
      new Date(
        Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 0, 0, 1),
      ).toISOString(),
    );
    await db.query("UPDATE gateway.spend_holds SET day = day - 1 WHERE key_id = $1", [capped.keyId]);
    await db.query("UPDATE gateway.key_daily_spend SET day = day - 1 WHERE key_id = $1", [capped.keyId]);
    await db.query("UPDATE gateway.runs SET created_at = created_at - interval '1 day' WHERE id = $1", [
      first.id,
    ]);

    let answered = 0;
    for (let n = 0; n < 30; n += 1) {
      const run = centRun(owner.accountId, capped.keyId, `run_today_${n}`);
      const today = await held.charge(run);
      if (today.kind !== "started") break;
      answered += 1;
      held.finish(today.charge, finishedRecord(run));
    }
    await held.stop();

    const [spent] = await db.query<{ micro: string }>(
      `SELECT COALESCE(sum(cost_micro), 0)::text AS micro FROM gateway.runs
       WHERE key_id = $1 AND (created_at AT TIME ZONE 'UTC')::date = (now() AT TIME ZONE 'UTC')::date`,
      [capped.keyId],
    );
    expect({ answered, spentToday: BigInt(spent?.micro ?? "0") }).toEqual({
      answered: 10,
      spentToday: 10n * CENT,
    });
  });
});

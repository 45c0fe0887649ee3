import { silentLogger, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { HeldSpend } from "../../src/runner/held-spend.ts";
import { startRunSweeper } from "../../src/store/run-sweeper.ts";
import { gatewayHarness, openAccount } from "../support/harness.ts";
import { accountBooks, centRun } from "./hold-audit-support.ts";

/**
 * A hold's expiry is written by the database's clock (`expires_at = now() + 30 s`, TAKE and
 * SETTLE), but the sweeper compares it with the instance's own clock (`run-sweeper.ts`:
 * `releaseExpiredHolds(deps.db, deps.clock.now())`). An instance whose clock runs 30 s ahead of
 * the database's releases every live hold of every instance on each sweep: their balance goes
 * back while their instances go on charging runs against them (then written uncharged), and the
 * caps count them as spent.
 */
describe("the expired-hold sweep on an instance whose clock is ahead of the database's", () => {
  test("leaves a hold renewed a moment ago alone", async ({ db }) => {
    const owner = await openAccount(db, 10_000_000n);
    const held = new HeldSpend(db, silentLogger(), { flushMs: 60_000 });
    expect((await held.charge(centRun(owner.accountId, owner.keyId, "run_live"))).kind).toBe("started");

    const h = gatewayHarness(db);
    const ahead = { now: () => new Date(Date.now() + 31_000) };
    let swept!: () => void;
    const sweptOnce = new Promise<void>((resolve) => {
      swept = resolve;
    });
    const idempotency = {
      pendingSince: h.deps.idempotency.pendingSince.bind(h.deps.idempotency),
      complete: h.deps.idempotency.complete.bind(h.deps.idempotency),
      release: h.deps.idempotency.release.bind(h.deps.idempotency),
      purgeExpired: async () => {
        swept();
        return 0;
      },
    };
    const stop = startRunSweeper(
      { db, runs: h.deps.runs, idempotency, clock: ahead, logger: silentLogger() },
      { abandonAfterMs: 5 * 60_000, everyMs: 60_000 },
    );
    try {
      await sweptOnce;
      expect((await accountBooks(db, owner.accountId)).holds).toBe(1);
    } finally {
      stop();
      await held.stop();
      await h.close();
    }
  });
});

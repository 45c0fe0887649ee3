import type { Database } from "@app/db";
import { holdTransaction, openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { releaseExpiredHolds, settleHold, takeHold } from "../../src/store/spend-holds.ts";
import { MARKETS_EVENT } from "../policies/policy-support.ts";
import { openAccount } from "../support/harness.ts";
import { CENT, centRun, finishedRecord } from "./hold-audit-support.ts";

/** Waits until `count` backends of this database wait on a lock. */
async function untilLockWaits(db: Database, count: number): Promise<void> {
  for (let n = 0; n < 200; n += 1) {
    const [row] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if ((row?.n ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never saw ${count} backends waiting on a lock`);
}

/**
 * The sweeper locks the expired holds first (`DELETE … FOR UPDATE SKIP LOCKED`), then their
 * accounts (`by_account`). SETTLE and TAKE lock the account first, then the hold. A live instance
 * settling (or topping up) a hold the sweeper is releasing at that moment (its database slow for
 * the hold's lifetime, the very case the sweeper is for) takes the two locks in the opposite order:
 * PostgreSQL finds a deadlock and aborts one of the two statements.
 */
describe("the sweeper releasing a hold while its instance settles it", () => {
  test("one waits for the other: no deadlock", async ({ db }) => {
    const owner = await openAccount(db, 10_000_000n);
    const taken = await takeHold(db, {
      holdId: "hold_slow_instance",
      known: false,
      accountId: owner.accountId,
      keyId: owner.keyId,
      tool: MARKETS_EVENT,
      priceMicro: CENT,
      wantMicro: 5n * CENT,
    });
    expect(taken.kind).toBe("held");
    await db.query("UPDATE gateway.spend_holds SET expires_at = now() - interval '1 minute'");

    const handles = [await openSecondHandle(db), await openSecondHandle(db), await openSecondHandle(db)];
    const [blocker, instance, sweeper] = handles as [Database, Database, Database];
    try {
      // Any statement of the account in progress (a credit, a charge): the account's row is locked.
      const busy = holdTransaction(blocker);
      await (await busy.tx).query("SELECT 1 FROM gateway.accounts WHERE id = $1 FOR UPDATE", [
        owner.accountId,
      ]);
      const run = centRun(owner.accountId, owner.keyId, "run_settled_late");
      const settle = settleHold(instance, {
        holdId: "hold_slow_instance",
        accountId: owner.accountId,
        keyId: owner.keyId,
        runs: [finishedRecord(run)],
        releaseMicro: 0n,
        version: taken.kind === "held" ? taken.version : 0,
      }).then(
        () => "ok",
        (error: Error) => error.message,
      );
      await untilLockWaits(db, 1); // the settle waits for the account
      const sweep = releaseExpiredHolds(sweeper).then(
        () => "ok",
        (error: Error) => error.message,
      );
      await untilLockWaits(db, 2); // the sweeper waits for the account too
      await busy.commit();
      expect(await Promise.all([settle, sweep])).toEqual(["ok", "ok"]);
    } finally {
      await Promise.all(handles.map((handle) => handle.close()));
    }
  });
});

import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { abandonAfterMs, refundAbandonedRuns } from "../../src/store/run-sweeper.ts";
import { balanceOf, RunStore } from "../../src/store/runs.ts";
import { openAccount } from "../support/harness.ts";
import { PRICE_MICRO } from "../support/priced.ts";

const newRun = (accountId: string, keyId: string, id: string) => ({
  id,
  accountId,
  keyId,
  provider: "priced",
  endpoint: "/echo",
  method: "GET",
  costMicro: PRICE_MICRO,
});

async function backdate(
  db: { query: (sql: string, params: unknown[]) => Promise<unknown> },
  id: string,
  ms: number,
) {
  await db.query(
    "UPDATE gateway.runs SET created_at = now() - make_interval(secs => $2::double precision / 1000) WHERE id = $1",
    [id, ms],
  );
}

describe("charged runs that no instance will finish", () => {
  test("a run charged by an instance that then died is finished as failed and refunded, once", async ({
    db,
  }) => {
    const caller = await openAccount(db, 1_000_000n);
    const runs = new RunStore(db);
    const after = abandonAfterMs(30_000);
    expect(after).toBe(5 * 60_000);
    // The crashed instance's run, charged long ago; a live one, charged a minute ago.
    const crashed = newRun(caller.accountId, caller.keyId, "run_crashed_sweeper");
    const live = newRun(caller.accountId, caller.keyId, "run_live_sweeper");
    expect((await runs.start(crashed)).kind).toBe("started");
    expect((await runs.start(live)).kind).toBe("started");
    await backdate(db, crashed.id, after + 60_000);
    await backdate(db, live.id, 60_000);
    expect(await balanceOf(db, caller.accountId)).toBe(1_000_000n - 2n * PRICE_MICRO);

    expect(await refundAbandonedRuns(runs, new Date(), after)).toBe(1);
    expect(await refundAbandonedRuns(runs, new Date(), after)).toBe(0);

    expect(await balanceOf(db, caller.accountId)).toBe(1_000_000n - PRICE_MICRO);
    const rows = await db.query<{ id: string; outcome: string }>(
      "SELECT id, outcome FROM gateway.runs WHERE id = ANY($1) ORDER BY id",
      [[crashed.id, live.id]],
    );
    expect(rows).toEqual([
      { id: crashed.id, outcome: "failed" },
      { id: live.id, outcome: "running" },
    ]);
    const refunds = await db.query<{ amount: string }>(
      "SELECT amount_micro::text AS amount FROM gateway.ledger WHERE run_id = $1 AND kind = 'refund'",
      [crashed.id],
    );
    expect(refunds).toEqual([{ amount: PRICE_MICRO.toString() }]);
  });

  test("the threshold is twice a long upstream deadline", () => {
    expect(abandonAfterMs(10 * 60_000)).toBe(20 * 60_000);
  });
});

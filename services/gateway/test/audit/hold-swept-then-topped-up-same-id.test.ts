import { silentLogger, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { type HeldCharge, HeldSpend } from "../../src/runner/held-spend.ts";
import { chargeRun } from "../../src/store/run-charge.ts";
import { releaseExpiredHolds } from "../../src/store/spend-holds.ts";
import { openAccount } from "../support/harness.ts";
import { accountBooks, CENT, centRun, finishedRecord } from "./hold-audit-support.ts";

/**
 * A live instance's hold expires (its database out of reach past the hold's lifetime) and the
 * sweeper releases it: its balance goes back to the account. The README: the instance then
 * "writes the runs it served from it uncharged, logs an error, and takes a new hold". But when
 * the slot's next statement is a top-up rather than a settle, TAKE upserts the same hold id
 * (`spend-holds.ts`, TAKE's `ON CONFLICT (id)`): the row is gone, so a new one is made holding
 * only the new grant, while the instance adds that grant to what it believes it still holds. Its
 * next settle charges every run (those of the swept hold too) against the new, smaller hold: here
 * more than the balance the sweeper gave back and others spent meanwhile, so the settle breaks
 * `balance_micro >= 0`, fails, and fails again on every retry: no run is written, the new hold
 * stays held until it expires, and then every run is written uncharged.
 */
describe("a hold swept from a live instance, then topped up before its next settle", () => {
  test("its runs are written, the run served from the new hold is charged, nothing stays held", async ({
    db,
  }) => {
    const owner = await openAccount(db, 10n * CENT);
    const held = new HeldSpend(db, silentLogger(), { flushMs: 60_000, runsPerHold: 5 });
    const charges: Array<{ id: string; charge: HeldCharge }> = [];
    const start = async (id: string) => {
      const started = await held.charge(centRun(owner.accountId, owner.keyId, id));
      if (started.kind === "started") charges.push({ id, charge: started.charge });
      return started.kind;
    };
    // Five runs use the whole hold (five prices of the ten in the balance) before any settle.
    for (let n = 0; n < 5; n += 1) expect(await start(`run_before_${n}`)).toBe("started");
    // The instance is out of reach past the hold's lifetime: the sweeper releases the hold.
    await db.query("UPDATE gateway.spend_holds SET expires_at = now() - interval '1 minute'");
    expect(await releaseExpiredHolds(db)).toBe(1);
    // Meanwhile idempotent runs spend half the balance the sweeper gave back.
    for (let n = 0; n < 5; n += 1) {
      const run = { ...centRun(owner.accountId, owner.keyId, `run_idem_${n}`), idempotencyKey: `idem-${n}` };
      expect((await chargeRun(db, run)).kind).toBe("started");
    }
    // The instance is back: its next run tops its hold up (same id), then everything settles.
    expect(await start("run_after")).toBe("started");
    for (const { id, charge } of charges) {
      held.finish(charge, finishedRecord(centRun(owner.accountId, owner.keyId, id)));
    }
    await held.stop();
    await held.stop();

    const [written] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM gateway.runs WHERE account_id = $1 AND id NOT LIKE 'run_idem_%'",
      [owner.accountId],
    );
    const books = await accountBooks(db, owner.accountId);
    expect({ written: written?.n, held: books.held, holds: books.holds }).toEqual({
      written: 6,
      held: 0n,
      holds: 0,
    });
    expect(books.ledgerSum).toBe(books.balance);
    // The run served from the hold taken after the sweep is charged.
    expect(books.balance).toBeLessThanOrEqual(4n * CENT);
  });
});

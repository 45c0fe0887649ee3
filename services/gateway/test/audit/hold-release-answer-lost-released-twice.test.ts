import { silentLogger, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { type HeldCharge, HeldSpend } from "../../src/runner/held-spend.ts";
import { noteRevocation } from "../../src/store/revocations.ts";
import { chargeRun } from "../../src/store/run-charge.ts";
import { keyWithPolicy, ledgerSpendOf } from "../policies/policy-support.ts";
import { openAccount } from "../support/harness.ts";
import { CENT, centRun, finishedRecord, losingSettleAnswers } from "./hold-audit-support.ts";

const TEN_USD = 10_000_000n;

/**
 * A settle that gives part of a hold back (`releaseMicro` > 0) reaches the database and commits,
 * but its answer is lost. The instance puts the released part back in its own count of the hold
 * (`held-spend.ts`, the settle's catch: `slot.heldMicro += released`) and sends the give-back
 * again: the database releases it a second time, out of what the runs still going took (SETTLE's
 * `LEAST($3, amount_micro - charged)`). Until the hold's last settle squares it (with a negative
 * release), the database counts less held than this instance has promised its runs: that room is
 * free for every other charge of the key, and the key passes its cap.
 */
describe("a give-back settle whose answer was lost", () => {
  test("is not released twice: the key's runs, held and idempotent, stay within its daily cap", async ({
    db,
  }) => {
    const owner = await openAccount(db, TEN_USD);
    const capped = await keyWithPolicy(db, owner, { dailyCapMicro: 10n * CENT });
    let lost = 0;
    const losing = losingSettleAnswers(db, (params) => {
      if (params[2] === "0" || lost > 0) return false;
      lost += 1;
      return true;
    });
    const held = new HeldSpend(losing, silentLogger(), { flushMs: 60_000, runsPerHold: 5 });
    const charges: Array<{ id: string; charge: HeldCharge }> = [];
    const start = async (id: string) => {
      try {
        const started = await held.charge(centRun(owner.accountId, capped.keyId, id));
        if (started.kind === "started") charges.push({ id, charge: started.charge });
        return started.kind;
      } catch {
        return "error";
      }
    };
    const finish = (id: string) => {
      const entry = charges.find((c) => c.id === id);
      if (entry) held.finish(entry.charge, finishedRecord(centRun(owner.accountId, capped.keyId, id)));
    };

    // A hold of five prices (half the cap); three runs charged from it, one finished.
    for (const id of ["run_a", "run_b", "run_c"]) expect(await start(id)).toBe("started");
    finish("run_a");
    // A key or policy changes in this process: the next run gives back what the hold does not use
    // (two prices: runs b and c are still going). That settle commits; its answer is lost.
    noteRevocation();
    await start("run_d");
    await start("run_e"); // the give-back sent again, then a hold taken anew
    // Meanwhile idempotent runs of the key are charged by their own statement, up to the cap.
    let idempotent = 0;
    for (let n = 0; n < 10; n += 1) {
      const charged = await chargeRun(db, {
        ...centRun(owner.accountId, capped.keyId, `run_idem_${n}`),
        idempotencyKey: `idem-${n}`,
      });
      if (charged.kind === "started") idempotent += 1;
    }
    // This instance goes on with what it believes it still holds.
    for (let n = 0; n < 10; n += 1) await start(`run_more_${n}`);
    for (const { id } of [...charges]) finish(id);
    await held.stop();

    expect(lost).toBe(1);
    const spent = await ledgerSpendOf(db, capped.keyId);
    expect(idempotent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(10n * CENT);
  });
});

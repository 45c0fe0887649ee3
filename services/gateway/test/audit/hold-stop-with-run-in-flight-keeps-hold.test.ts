import { silentLogger, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { HeldSpend } from "../../src/runner/held-spend.ts";
import { keyWithPolicy } from "../policies/policy-support.ts";
import { openAccount } from "../support/harness.ts";
import { accountBooks, CENT, centRun } from "./hold-audit-support.ts";

/**
 * `stop()` ("Settles everything and gives every hold back") only gives back holds whose runs have
 * all finished: `flush` passes `giveBack` only for an idle slot (`running === 0`). A graceful stop
 * while one slow run is still going (the server's close gives requests 5 s, an upstream may take
 * longer) leaves the whole rest of that hold held: the instance is gone, the sweeper releases it
 * 30 s later and counts all of it as spent on the key's caps (here half the day's cap, for one run).
 */
describe("stop() while a run of a hold is still going", () => {
  test("gives back what that run does not need", async ({ db }) => {
    const owner = await openAccount(db, 10_000_000n);
    const capped = await keyWithPolicy(db, owner, { dailyCapMicro: 100n * CENT });
    const held = new HeldSpend(db, silentLogger(), { flushMs: 60_000 });
    expect((await held.charge(centRun(owner.accountId, capped.keyId, "run_slow"))).kind).toBe("started");
    expect((await accountBooks(db, owner.accountId)).held).toBe(50n * CENT);
    await held.stop();
    expect((await accountBooks(db, owner.accountId)).held).toBe(CENT);
  });
});

import type { Queryable } from "@app/db";
import { silentLogger, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { HeldSpend } from "../../src/runner/held-spend.ts";
import { KeyPolicyStore } from "../../src/store/key-policies.ts";
import { releaseExpiredHolds } from "../../src/store/spend-holds.ts";
import { FakeUpstreamClient } from "../../src/upstream/client.fake.ts";
import {
  accountHolds,
  CENT,
  centRun,
  finishedRecord,
  losingSettleAnswers,
} from "../audit/hold-audit-support.ts";
import {
  configuredPrices,
  keyWithPolicy,
  ledgerSpendOf,
  MARKETS_EVENT,
  marketsRun,
  spendCounters,
} from "../policies/policy-support.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";

const TEN_USD = 10_000_000n;

type Standing = { balance: bigint; held: bigint; holds: number; counters: Record<string, [bigint, bigint]> };

/** The account's balance and what is held of it, its holds, and its key's counters (spent, held) of today. */
async function standing(db: Queryable, accountId: string, keyId: string): Promise<Standing> {
  const money = await accountHolds(db, accountId);
  const counters = await db.query<{ tool: string; spent: string; held: string }>(
    `SELECT tool, spent_micro::text AS spent, held_micro::text AS held FROM gateway.key_daily_spend
     WHERE key_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date`,
    [keyId],
  );
  return {
    ...money,
    counters: Object.fromEntries(counters.map((row) => [row.tool, [BigInt(row.spent), BigInt(row.held)]])),
  };
}

describe("priced runs charged from holds", () => {
  test("a settle that reached the database but whose answer was lost, sent again, charges nothing twice", async ({
    db,
  }) => {
    const owner = await openAccount(db, TEN_USD);
    let lost = 0; // the first settle's answer is lost, no other
    const held = new HeldSpend(
      losingSettleAnswers(db, () => lost++ < 1),
      silentLogger(),
      { flushMs: 60_000 },
    );
    for (const id of ["run_lost_1", "run_lost_2"]) {
      const run = centRun(owner.accountId, owner.keyId, id);
      const started = await held.charge(run);
      expect(started.kind).toBe("started");
      if (started.kind === "started") held.finish(started.charge, finishedRecord(run));
    }
    await held.flush(); // written, answer lost: kept for the next settle
    await held.stop(); // sent again, and the hold given back
    expect(await ledgerSpendOf(db, owner.keyId)).toBe(2n * CENT);
    expect(await standing(db, owner.accountId, owner.keyId)).toEqual({
      balance: TEN_USD - 2n * CENT,
      held: 0n,
      holds: 0,
      counters: { "": [2n * CENT, 0n], [MARKETS_EVENT]: [2n * CENT, 0n] },
    });
  });

  test("a refunded run gives its price back to the hold; the ledger shows its charge and its refund", async ({
    db,
  }) => {
    const owner = await openAccount(db, TEN_USD);
    const held = new HeldSpend(db, silentLogger(), { flushMs: 60_000 });
    const run = centRun(owner.accountId, owner.keyId, "run_refunded");
    const started = await held.charge(run);
    expect(held.pendingOf(owner.accountId)).toBe(CENT);
    if (started.kind === "started")
      expect(held.finish(started.charge, finishedRecord(run, true))).toBe(TEN_USD);
    expect(held.pendingOf(owner.accountId)).toBe(0n);
    await held.stop();
    const rows = await db.query<{ kind: string; amount: string; after: string }>(
      `SELECT kind, amount_micro::text AS amount, balance_after_micro::text AS after FROM gateway.ledger
       WHERE run_id = 'run_refunded' ORDER BY id`,
    );
    expect(rows).toEqual([
      { kind: "run", amount: (-CENT).toString(), after: (TEN_USD - CENT).toString() },
      { kind: "refund", amount: CENT.toString(), after: TEN_USD.toString() },
    ]);
    expect((await standing(db, owner.accountId, owner.keyId)).balance).toBe(TEN_USD);
  });

  test("a cap lowered by another instance binds this one from its next settle: the rest of its hold goes back", async ({
    db,
  }) => {
    const owner = await openAccount(db, TEN_USD);
    const capped = await keyWithPolicy(db, owner, { dailyCapMicro: 100n * CENT });
    const held = new HeldSpend(db, silentLogger(), { flushMs: 60_000 });
    const first = centRun(owner.accountId, capped.keyId, "run_before_cap");
    const started = await held.charge(first);
    if (started.kind === "started") held.finish(started.charge, finishedRecord(first));
    expect((await standing(db, owner.accountId, capped.keyId)).held).toBe(50n * CENT);
    // Another instance lowers the cap to what is spent: no statement of this process says so.
    await db.query("UPDATE gateway.key_policies SET daily_cap_micro = $2 WHERE key_id = $1", [
      capped.keyId,
      CENT,
    ]);
    await held.flush();
    await held.flush(); // the give-back the settle asked for
    expect((await standing(db, owner.accountId, capped.keyId)).held).toBe(0n);
    const refused = await held.charge(centRun(owner.accountId, capped.keyId, "run_after_cap"));
    expect(refused).toMatchObject({ kind: "capped", cap: "daily", capMicro: CENT, spentMicro: CENT });
    await held.stop();
  });

  test("a cap set in this process binds the next run at once, whatever the hold held", async ({ db }) => {
    const owner = await openAccount(db, TEN_USD);
    const held = new HeldSpend(db, silentLogger(), { flushMs: 60_000 });
    const first = centRun(owner.accountId, owner.keyId, "run_uncapped");
    const started = await held.charge(first);
    if (started.kind === "started") held.finish(started.charge, finishedRecord(first));
    await new KeyPolicyStore(db).change(owner.keyId, { dailyCapMicro: CENT });
    const refused = await held.charge(centRun(owner.accountId, owner.keyId, "run_capped"));
    expect(refused).toMatchObject({ kind: "capped", capMicro: CENT, spentMicro: CENT });
    await held.stop();
    expect(await ledgerSpendOf(db, owner.keyId)).toBe(CENT);
  });

  test("an instance that stopped without settling: its holds expire, the balance comes back, the caps count them", async ({
    db,
  }) => {
    const owner = await openAccount(db, TEN_USD);
    const capped = await keyWithPolicy(db, owner, { dailyCapMicro: 100n * CENT });
    const held = new HeldSpend(db, silentLogger(), { flushMs: 60_000 });
    await held.charge(centRun(owner.accountId, capped.keyId, "run_of_a_dead_instance"));
    // The instance dies here: its run never settles.
    expect(await releaseExpiredHolds(db)).toBe(0);
    await db.query(
      "UPDATE gateway.spend_holds SET expires_at = now() - interval '1 minute' WHERE account_id = $1",
      [owner.accountId],
    );
    expect(await releaseExpiredHolds(db)).toBe(1);
    expect(await standing(db, owner.accountId, capped.keyId)).toEqual({
      balance: TEN_USD,
      held: 0n,
      holds: 0,
      counters: { "": [50n * CENT, 0n], [MARKETS_EVENT]: [50n * CENT, 0n] },
    });
  });

  test("over HTTP: runs of one key on two tools share its daily cap; what one tool's hold does not use serves the other", async ({
    db,
  }) => {
    const upstream = new FakeUpstreamClient();
    const h = gatewayHarness(db, {
      upstream,
      toolPrices: configuredPrices({
        [MARKETS_EVENT]: "0.01",
        "shop /api/shops/agent-availability GET": "0.01",
      }),
    });
    const owner = await openAccount(db, TEN_USD);
    const capped = await keyWithPolicy(db, owner, { dailyCapMicro: 4n * CENT });
    const shopRun = {
      provider: "shop",
      endpoint: "/api/shops/agent-availability",
      method: "GET",
      input: { queryParams: { service: "haircut", from: "2026-12-01", days: 1, partySize: 1 } },
    };
    const headers = { ...bearer(capped.key), "x-upstream-key": "shop-key" };
    // The markets hold takes half the cap; the shop's runs need the rest and then some.
    expect((await postJson(h.app, "/v1/run", marketsRun(), headers)).status).toBe(200);
    const shop = [];
    for (let n = 0; n < 4; n += 1) shop.push((await postJson(h.app, "/v1/run", shopRun, headers)).status);
    expect(shop).toEqual([200, 200, 200, 402]);
    await h.close();
    expect(await ledgerSpendOf(db, capped.keyId)).toBe(4n * CENT);
    expect(await spendCounters(db, capped.keyId)).toMatchObject({ "": 4n * CENT });
  });
});

describe("a hold whose runs are all still going", () => {
  test("is renewed all the same, so the sweeper never takes it from a live instance", async ({ db }) => {
    const owner = await openAccount(db, TEN_USD);
    const held = new HeldSpend(db, silentLogger(), { flushMs: 60_000, renewAfterMs: 0 });
    const run = centRun(owner.accountId, owner.keyId, "run_slow_upstream");
    const started = await held.charge(run);
    const expiry = async () => {
      const [row] = await db.query<{ expires: Date }>(
        "SELECT expires_at AS expires FROM gateway.spend_holds WHERE account_id = $1",
        [owner.accountId],
      );
      return new Date(row?.expires ?? 0).getTime();
    };
    const first = await expiry();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await held.flush(); // the run is still going: nothing to write, the hold renewed
    expect(await expiry()).toBeGreaterThan(first);
    if (started.kind === "started") held.finish(started.charge, finishedRecord(run));
    await held.stop();
    expect(await ledgerSpendOf(db, owner.keyId)).toBe(CENT);
  });
});

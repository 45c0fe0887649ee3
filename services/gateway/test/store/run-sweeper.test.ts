import { systemClock } from "@app/core";
import type { Database } from "@app/db";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { failedAfterCharge } from "../../src/runner/idempotent-run.ts";
import { gatewayIdempotencyStore } from "../../src/store/idempotency.ts";
import {
  abandonAfterMs,
  pinnedKeyFate,
  refundAbandonedRuns,
  settlePinnedRunKeys,
} from "../../src/store/run-sweeper.ts";
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

/**
 * A key begun for run `runId` (its attachment), pinned before the charge unless `pinned` is false,
 * and begun `ageMs` ago.
 */
async function keyOfRun(
  db: Database,
  scope: string,
  runId: string,
  options: { pinned?: boolean; ageMs: number },
) {
  const store = gatewayIdempotencyStore(db, systemClock, undefined);
  const key = `key-${runId}`;
  const begun = await store.begin({ scope, key, fingerprint: "f", attachment: runId });
  if (begun.kind !== "started") throw new Error(`the key of ${runId} was not free`);
  if (options.pinned ?? true) expect(await store.pin(begun.lease)).toBe(true);
  await db.query(
    `UPDATE edge.idempotency_keys SET created_at = created_at - make_interval(secs => $2::double precision / 1000)
     WHERE namespace = 'gateway' AND idempotency_key = $1`,
    [key, options.ageMs],
  );
  const again = () => store.begin({ scope, key, fingerprint: "f" });
  return { store, again };
}

describe("pinned Idempotency-Keys of runs whose request is gone", () => {
  const after = abandonAfterMs(30_000);
  const old = after + 60_000;

  test("a key whose charged run was abandoned keeps the 500 once the run is refunded; its retry is neither run nor charged", async ({
    db,
  }) => {
    const caller = await openAccount(db, 1_000_000n);
    const runs = new RunStore(db);
    const run = newRun(caller.accountId, caller.keyId, "run_pinned_abandoned");
    const { store, again } = await keyOfRun(db, caller.accountId, run.id, { ageMs: old });
    expect((await runs.start(run)).kind).toBe("started");
    await backdate(db, run.id, old);

    // While the run is still `running`, its key waits, however old.
    expect(await settlePinnedRunKeys(runs, store, new Date(), after)).toBe(0);
    expect((await again()).kind).toBe("in_progress");

    expect(await refundAbandonedRuns(runs, new Date(), after)).toBe(1);
    expect(await settlePinnedRunKeys(runs, store, new Date(), after)).toBe(1);
    expect(await again()).toMatchObject({ kind: "replay", response: failedAfterCharge() });
    expect(await balanceOf(db, caller.accountId)).toBe(1_000_000n);
    expect(await settlePinnedRunKeys(runs, store, new Date(), after)).toBe(0);
  });

  test("a key whose run ended in the gateway's own 502/504 is released, so a retry runs again", async ({
    db,
  }) => {
    const caller = await openAccount(db, 1_000_000n);
    const runs = new RunStore(db);
    const run = newRun(caller.accountId, caller.keyId, "run_pinned_timeout");
    const { store, again } = await keyOfRun(db, caller.accountId, run.id, { ageMs: old });
    expect((await runs.start(run)).kind).toBe("started");
    await runs.finish(run, {
      outcome: "upstream_timeout",
      upstreamStatus: null,
      durationMs: 10,
      refund: true,
    });

    expect(await settlePinnedRunKeys(runs, store, new Date(), after)).toBe(1);
    expect((await again()).kind).toBe("started");
  });

  test("a key whose run completed but whose answer was never stored, or with no run at all, keeps the 500", async ({
    db,
  }) => {
    const caller = await openAccount(db, 1_000_000n);
    const runs = new RunStore(db);
    const run = newRun(caller.accountId, caller.keyId, "run_pinned_completed");
    const completed = await keyOfRun(db, caller.accountId, run.id, { ageMs: old });
    expect((await runs.start(run)).kind).toBe("started");
    await runs.finish(run, { outcome: "completed", upstreamStatus: 200, durationMs: 10, refund: false });
    // Pinned, then its instance stopped before the charge (or stalls there still).
    const runless = await keyOfRun(db, caller.accountId, "run_pinned_never_started", { ageMs: old });

    expect(await settlePinnedRunKeys(runs, completed.store, new Date(), after)).toBe(2);
    expect(await completed.again()).toMatchObject({ kind: "replay", response: failedAfterCharge() });
    expect(await runless.again()).toMatchObject({ kind: "replay", response: failedAfterCharge() });
    expect(await balanceOf(db, caller.accountId)).toBe(1_000_000n - PRICE_MICRO);
  });

  test("keys that are not pinned, and pinned keys younger than the threshold, are left as they are", async ({
    db,
  }) => {
    const caller = await openAccount(db, 1_000_000n);
    const runs = new RunStore(db);
    const unpinned = await keyOfRun(db, caller.accountId, "run_unpinned", { pinned: false, ageMs: old });
    const young = await keyOfRun(db, caller.accountId, "run_pinned_young", { ageMs: after - 60_000 });

    expect(await settlePinnedRunKeys(runs, unpinned.store, new Date(), after)).toBe(0);
    expect((await unpinned.again()).kind).toBe("in_progress");
    expect((await young.again()).kind).toBe("in_progress");
  });

  test("what each outcome of a run means for its pinned key", () => {
    expect(pinnedKeyFate("running")).toBe("wait");
    for (const outcome of [
      "upstream_unavailable",
      "upstream_timeout",
      "upstream_response_too_large",
    ] as const)
      expect(pinnedKeyFate(outcome)).toBe("release");
    for (const outcome of ["failed", "completed", undefined] as const)
      expect(pinnedKeyFate(outcome)).toBe("keep-500");
  });
});

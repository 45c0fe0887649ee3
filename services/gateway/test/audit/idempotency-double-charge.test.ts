import { test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { balanceOf } from "../../src/store/runs.ts";
import type { FakeServer } from "../support/fake-upstreams.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";
import { PRICE_MICRO, PRICED_PROVIDER, pricedRun, pricedUpstream } from "../support/priced.ts";

let priced: FakeServer;
beforeAll(async () => {
  priced = await pricedUpstream();
});
afterAll(() => priced.close());

describe("audit: a priced run that fails after its charge, retried with its Idempotency-Key", () => {
  // src/runner/idempotent-run.ts: any error from execute() releases the key, including one
  // thrown after runs.start() charged the account and the upstream ran (runs.finish failing on a
  // database blip). The retry with the same key runs and charges again; the first charge is
  // never refunded and its run row stays 'running'.
  test("charges the account at most once", async ({ db }) => {
    const h = gatewayHarness(db, { urls: { priced: priced.url }, extraProviders: [PRICED_PROVIDER] });
    const caller = await openAccount(db, 10n * PRICE_MICRO);
    const finish = h.deps.runs.finish.bind(h.deps.runs);
    let failures = 1;
    h.deps.runs.finish = async (...args) => {
      if (failures-- > 0) throw new Error("connection terminated unexpectedly");
      return finish(...args);
    };
    const headers = { ...bearer(caller.key), "idempotency-key": "pay-once" };
    const first = await postJson(h.app, "/v1/run", pricedRun(), headers);
    expect(first.status).toBe(500);
    const retry = await postJson(h.app, "/v1/run", pricedRun(), headers);
    expect([200, 409, 500]).toContain(retry.status);
    expect(await balanceOf(db, caller.accountId)).toBeGreaterThanOrEqual(9n * PRICE_MICRO);
    await h.close();
  });
});

describe("a priced run that fails on the gateway's side after its charge", () => {
  test("is refunded, and its Idempotency-Key replays the 500 without running again", async ({ db }) => {
    const h = gatewayHarness(db, { urls: { priced: priced.url }, extraProviders: [PRICED_PROVIDER] });
    const caller = await openAccount(db, 10n * PRICE_MICRO);
    const finish = h.deps.runs.finish.bind(h.deps.runs);
    let failures = 1;
    h.deps.runs.finish = async (...args) => {
      if (failures-- > 0) throw new Error("connection terminated unexpectedly");
      return finish(...args);
    };
    const headers = { ...bearer(caller.key), "idempotency-key": "refund-me" };
    const first = await postJson(h.app, "/v1/run", pricedRun(), headers);
    expect(first.status).toBe(500);
    const firstBody = await first.text();
    const retry = await postJson(h.app, "/v1/run", pricedRun(), headers);
    expect(retry.status).toBe(500);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.text()).toBe(firstBody);
    expect(await balanceOf(db, caller.accountId)).toBe(10n * PRICE_MICRO);
    const runs = await db.query<{ outcome: string }>(
      "SELECT outcome FROM gateway.runs WHERE account_id = $1",
      [caller.accountId],
    );
    expect(runs.map((r) => r.outcome)).toEqual(["failed"]);
    const refunds = await db.query("SELECT 1 FROM gateway.ledger WHERE account_id = $1 AND kind = 'refund'", [
      caller.accountId,
    ]);
    expect(refunds).toHaveLength(1);
    await h.close();
  });

  test("a second finish of a run already finished refunds nothing", async ({ db }) => {
    const h = gatewayHarness(db, { urls: { priced: priced.url }, extraProviders: [PRICED_PROVIDER] });
    const caller = await openAccount(db, 10n * PRICE_MICRO);
    const finish = h.deps.runs.finish.bind(h.deps.runs);
    let lost = 1;
    // The finish reaches the database, but its answer is lost.
    h.deps.runs.finish = async (...args) => {
      const balance = await finish(...args);
      if (lost-- > 0) throw new Error("connection terminated unexpectedly");
      return balance;
    };
    // With an Idempotency-Key, the run is charged and finished by the database's own statements.
    const headers = { ...bearer(caller.key), "idempotency-key": "finish-lost" };
    const first = await postJson(h.app, "/v1/run", pricedRun(), headers);
    expect(first.status).toBe(500);
    expect(await balanceOf(db, caller.accountId)).toBe(9n * PRICE_MICRO);
    await h.close();
  });
});

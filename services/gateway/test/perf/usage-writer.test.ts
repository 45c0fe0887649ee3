import { newId } from "@app/core";
import type { Database } from "@app/db";
import { json, silentLogger, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { type FreeRunRecord, UsageWriter } from "../../src/store/usage-writer.ts";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";

const event = {
  provider: "markets",
  endpoint: "/pm/event",
  method: "GET",
  input: { queryParams: { ref: "x" } },
};

describe("free runs' usage records, written behind the response", () => {
  test("every run gets its usage record and ledger row of 0, in a few statements for many runs", async ({
    db,
  }) => {
    let statements = 0;
    const counted: Database = {
      ...db,
      query: (sql, params) => {
        statements += 1;
        return db.query(sql, params);
      },
    };
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    const h = gatewayHarness(counted, { upstream, runsPerMinute: 100_000 });
    const caller = await openAccount(db, 2_000_000n);
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => postJson(h.app, "/v1/run", event, bearer(caller.key))),
    );
    const bodies = await Promise.all(answers.map((res) => json(res)));
    expect(answers.every((res) => res.status === 200)).toBe(true);
    expect(answers[0]?.headers.get("content-type")).toBe("application/json");
    expect(answers[0]?.headers.get("cache-control")).toBe("no-store");
    expect(bodies.every((body) => body.balance.amount === "2")).toBe(true);
    await h.deps.usage.flush();
    // One key lookup, one rate-limit lease, one batch.
    expect(statements).toBeLessThanOrEqual(4);
    const runs = await db.query<{ id: string; outcome: string; upstream_status: number; cost: string }>(
      "SELECT id, outcome, upstream_status, cost_micro::text AS cost FROM gateway.runs WHERE account_id = $1",
      [caller.accountId],
    );
    expect(runs.map((run) => run.id).sort()).toEqual(bodies.map((body) => body.runId).sort());
    expect(
      runs.every((run) => run.outcome === "completed" && run.upstream_status === 200 && run.cost === "0"),
    ).toBe(true);
    const ledger = await db.query<{ run_id: string; amount: string; after: string }>(
      `SELECT run_id, amount_micro::text AS amount, balance_after_micro::text AS after
       FROM gateway.ledger WHERE account_id = $1 AND kind = 'run'`,
      [caller.accountId],
    );
    expect(ledger).toHaveLength(40);
    expect(ledger.every((row) => row.amount === "0" && row.after === "2000000")).toBe(true);
    await h.close();
  });

  test("a failed free run (upstream unreachable) is recorded too, and stop writes what waits", async ({
    db,
  }) => {
    const upstream = new FakeUpstreamClient(async () => {
      const { UpstreamFailure } = await import("../../src/upstream/client.ts");
      throw new UpstreamFailure("unavailable", "ECONNREFUSED");
    });
    const h = gatewayHarness(db, { upstream });
    const caller = await openAccount(db);
    expect((await postJson(h.app, "/v1/run", event, bearer(caller.key))).status).toBe(502);
    expect(h.deps.usage.pending).toBe(1);
    await h.close();
    const [run] = await db.query<{ outcome: string }>(
      "SELECT outcome FROM gateway.runs WHERE account_id = $1",
      [caller.accountId],
    );
    expect(run?.outcome).toBe("upstream_unavailable");
  });

  test("a batch that fails is retried, and a retried batch writes each run once", async ({ db }) => {
    const caller = await openAccount(db);
    let failures = 1;
    const flaky: Database = {
      ...db,
      query: (sql, params) => {
        if (failures-- > 0) return Promise.reject(new Error("connection terminated unexpectedly"));
        return db.query(sql, params);
      },
    };
    const writer = new UsageWriter(flaky, silentLogger(), { flushMs: 1 });
    const record = (): FreeRunRecord => ({
      id: newId("run"),
      accountId: caller.accountId,
      keyId: caller.keyId,
      provider: "markets",
      endpoint: "/pm/event",
      method: "GET",
      outcome: "completed",
      upstreamStatus: 200,
      durationMs: 3,
      startedAt: new Date(),
      finishedAt: new Date(),
    });
    const first = record();
    writer.record(first);
    await writer.flush();
    expect(writer.pending).toBe(1);
    writer.record(record());
    await writer.flush();
    expect(writer.pending).toBe(0);
    // The same run once more (a batch retried after its commit): skipped, no second ledger row.
    writer.record(first);
    await writer.flush();
    const [counts] = await db.query<{ runs: number; rows: number }>(
      `SELECT (SELECT count(*)::int FROM gateway.runs WHERE account_id = $1) AS runs,
              (SELECT count(*)::int FROM gateway.ledger WHERE account_id = $1) AS rows`,
      [caller.accountId],
    );
    expect(counts).toEqual({ runs: 2, rows: 2 });
  });
});

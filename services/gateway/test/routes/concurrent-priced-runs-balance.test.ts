import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { usd } from "../../src/domain/money.ts";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";
import { PRICE_MICRO, PRICED_PROVIDER, pricedRun } from "../support/priced.ts";

const RUNS = 10;

/**
 * An upstream that answers no request until `count` of them are in: every run has then been
 * charged before any of them finishes, whatever order the runs are scheduled in.
 */
function upstreamAnsweringTogether(count: number): FakeUpstreamClient {
  let release: () => void = () => {};
  const allIn = new Promise<void>((resolve) => {
    release = resolve;
  });
  const upstream: FakeUpstreamClient = new FakeUpstreamClient(async () => {
    if (upstream.requests.length >= count) release();
    await allIn;
    return jsonAnswer(200, { ok: true });
  });
  return upstream;
}

describe("concurrent priced runs", () => {
  test("each answer carries the balance right after its own charge: 10 runs, 10 distinct balances", async ({
    db,
  }) => {
    const h = gatewayHarness(db, {
      upstream: upstreamAnsweringTogether(RUNS),
      extraProviders: [PRICED_PROVIDER],
    });
    const caller = await openAccount(db, PRICE_MICRO * BigInt(RUNS));
    const answers = await Promise.all(
      Array.from({ length: RUNS }, () => postJson(h.app, "/v1/run", pricedRun(), bearer(caller.key))),
    );
    const envelopes = await Promise.all(answers.map((res) => json(res)));
    expect(answers.map((res) => res.status)).toEqual(Array(RUNS).fill(200));
    const balances = envelopes.map((envelope) => envelope.balance.amount).sort();
    // 0.25 USD a run from 2.5 USD: 2.25, 2, 1.75, … 0, each once.
    expect(balances).toEqual(["0", "0.25", "0.5", "0.75", "1", "1.25", "1.5", "1.75", "2", "2.25"]);
    // Each answer's balance is the one its own ledger row recorded after its charge.
    await h.deps.held.flush(); // priced runs are settled behind their answers
    const rows = await db.query<{ run_id: string; balance: string }>(
      `SELECT run_id, balance_after_micro::text AS balance FROM gateway.ledger
       WHERE account_id = $1 AND kind = 'run'`,
      [caller.accountId],
    );
    const afterCharge = new Map(rows.map((row) => [row.run_id, row.balance]));
    for (const envelope of envelopes) {
      expect(afterCharge.has(envelope.runId), envelope.runId).toBe(true);
      expect(envelope.balance).toEqual(usd(BigInt(afterCharge.get(envelope.runId) ?? "-1")));
    }
    await h.close();
  });
});

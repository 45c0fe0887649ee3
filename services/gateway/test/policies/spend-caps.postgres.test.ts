import type { Database } from "@app/db";
import { json, openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { bearer, gatewayHarness, type Harness, openAccount, postJson } from "../support/harness.ts";
import {
  configuredPrices,
  keyWithPolicy,
  LIST_POSTS,
  ledgerSpendOf,
  listPostsRun,
  MARKETS_EVENT,
  marketsRun,
  spendCounters,
} from "./policy-support.ts";

const TEN_USD = 10_000_000n;

/**
 * Two gateway instances on one PostgreSQL, each with a pool of its own, so that runs are charged
 * concurrently on many connections (PGlite has one, and serialises every statement).
 */
async function withTwoInstances(
  db: Database,
  options: Parameters<typeof gatewayHarness>[1],
  work: (one: Harness, two: Harness) => Promise<void>,
): Promise<void> {
  const handles = [await openSecondHandle(db), await openSecondHandle(db)];
  const [one, two] = handles.map((handle) => gatewayHarness(handle, options)) as [Harness, Harness];
  try {
    await work(one, two);
  } finally {
    await Promise.all([one.close(), two.close()]);
    await Promise.all(handles.map((handle) => handle.close()));
  }
}

/** `count` runs of `body` with `headers`, half at each instance, all at once. */
function runsAtBoth(
  one: Harness,
  two: Harness,
  count: number,
  body: unknown,
  headers: Record<string, string>,
) {
  return Promise.all(
    Array.from({ length: count }, (_, n) =>
      postJson((n % 2 === 0 ? one : two).app, "/v1/run", body, headers),
    ),
  );
}

describe("spend caps on PostgreSQL, two instances charging at once", () => {
  test("200 concurrent priced runs against a 0.10 daily cap spend 0.10 and no more", async ({ db }) => {
    const owner = await openAccount(db, TEN_USD);
    const capped = await keyWithPolicy(db, owner, { dailyCapMicro: 100_000n });
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    await withTwoInstances(
      db,
      { upstream, toolPrices: configuredPrices(), runsPerMinute: 1_000 },
      async (one, two) => {
        const answers = await runsAtBoth(one, two, 200, marketsRun(), bearer(capped.key));
        const statuses = answers.map((res) => res.status);
        expect(statuses.filter((status) => status === 200)).toHaveLength(10);
        expect(statuses.filter((status) => status === 402)).toHaveLength(190);
        expect(await json(answers[statuses.indexOf(402)] as Response)).toMatchObject({
          error: "SPEND_CAP_REACHED",
          cap: { amount: "0.1" },
          spent: { amount: "0.1" },
        });
      },
    );
    expect(await ledgerSpendOf(db, capped.keyId)).toBe(100_000n);
    expect(upstream.requests).toHaveLength(10);
    expect(await spendCounters(db, capped.keyId)).toEqual({ "": 100_000n, [MARKETS_EVENT]: 100_000n });
  });

  test("concurrent runs of two tools, one capped at 0.02: each cap holds, the total at 0.10", async ({
    db,
  }) => {
    const owner = await openAccount(db, TEN_USD);
    const capped = await keyWithPolicy(db, owner, {
      dailyCapMicro: 100_000n,
      toolCapsMicro: { [MARKETS_EVENT]: 20_000n },
    });
    const upstream = new FakeUpstreamClient();
    await withTwoInstances(
      db,
      {
        upstream,
        toolPrices: configuredPrices({ [MARKETS_EVENT]: "0.01", [LIST_POSTS]: "0.01" }),
        runsPerMinute: 1_000,
      },
      async (one, two) => {
        const headers = { ...bearer(capped.key), "x-upstream-key": "pub_key_0123456789" };
        await Promise.all([
          runsAtBoth(one, two, 100, marketsRun(), headers),
          runsAtBoth(one, two, 100, listPostsRun(), headers),
        ]);
      },
    );
    const counters = await spendCounters(db, capped.keyId);
    expect(counters[""]).toBe(100_000n);
    expect(counters[MARKETS_EVENT]).toBe(20_000n);
    expect(counters[LIST_POSTS]).toBe(80_000n);
    expect(await ledgerSpendOf(db, capped.keyId)).toBe(100_000n);
  });

  test("refunds running alongside charges give their spend back: the cap is spent by served runs only", async ({
    db,
  }) => {
    const owner = await openAccount(db, TEN_USD);
    const capped = await keyWithPolicy(db, owner, { dailyCapMicro: 100_000n });
    // Every other answer is a 503, refunded.
    let answered = 0;
    const upstream = new FakeUpstreamClient(() => {
      answered += 1;
      return jsonAnswer(answered % 2 === 0 ? 503 : 200, {});
    });
    await withTwoInstances(
      db,
      { upstream, toolPrices: configuredPrices(), runsPerMinute: 1_000 },
      async (one, two) => {
        // Waves, so that refunds come back while later charges are being decided.
        for (let wave = 0; wave < 4; wave += 1) {
          await runsAtBoth(one, two, 50, marketsRun(), bearer(capped.key));
          const spent = await ledgerSpendOf(db, capped.keyId);
          expect(spent).toBeLessThanOrEqual(100_000n);
          expect((await spendCounters(db, capped.keyId))[""]).toBe(spent);
        }
        // Then one at a time until the cap refuses: what is left of it is spent exactly.
        const statuses: number[] = [];
        while (statuses.at(-1) !== 402 && statuses.length < 100) {
          statuses.push((await postJson(one.app, "/v1/run", marketsRun(), bearer(capped.key))).status);
        }
        expect(statuses.at(-1)).toBe(402);
      },
    );
    expect(await ledgerSpendOf(db, capped.keyId)).toBe(100_000n);
    expect(await spendCounters(db, capped.keyId)).toEqual({ "": 100_000n, [MARKETS_EVENT]: 100_000n });
  });
});

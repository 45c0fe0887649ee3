import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { KeyPolicyStore } from "../../src/store/key-policies.ts";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";
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

const CAP_MICRO = 100_000n; // 0.10 USD
const TEN_USD = 10_000_000n;

/** The UTC midnight after now: when today's spend is forgotten. */
function nextUtcMidnight(): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
}

describe("a key's daily spend cap", () => {
  // 200 charges, one after another on the embedded database, take a while on a busy machine.
  test("200 concurrent priced runs against a 0.10 daily cap spend 0.10 and no more: 10 run, 190 are refused", async ({
    db,
  }) => {
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    const h = gatewayHarness(db, { upstream, toolPrices: configuredPrices(), runsPerMinute: 1_000 });
    const owner = await openAccount(db, TEN_USD);
    const capped = await keyWithPolicy(db, owner, { dailyCapMicro: CAP_MICRO });

    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, n) =>
        postJson(h.app, "/v1/run", marketsRun(`ref-${n}`), bearer(capped.key)),
      ),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 402)).toHaveLength(190);
    const refusal = await json(answers[statuses.indexOf(402)] as Response);
    expect(refusal).toEqual({
      error: "SPEND_CAP_REACHED",
      message: "This run would take the gateway key past its daily spend cap; nothing was charged.",
      scope: "key",
      cap: { amount: "0.1", currency: "USD" },
      spent: { amount: "0.1", currency: "USD" },
      price: { amount: "0.01", currency: "USD" },
      resetsAt: nextUtcMidnight(),
    });

    // The ledger holds exactly the cap: ten charges of 0.01; the refused runs reached no upstream.
    await h.deps.held.flush(); // priced runs are settled behind their answers
    expect(await ledgerSpendOf(db, capped.keyId)).toBe(CAP_MICRO);
    expect(upstream.requests).toHaveLength(10);
    expect(await spendCounters(db, capped.keyId)).toEqual({ "": CAP_MICRO, [MARKETS_EVENT]: CAP_MICRO });
    const [account] = await db.query<{ balance: string }>(
      "SELECT balance_micro::text AS balance FROM gateway.accounts WHERE id = $1",
      [owner.accountId],
    );
    expect(account?.balance).toBe((TEN_USD - CAP_MICRO).toString());

    // Another key of the account is not held by this key's cap.
    expect((await postJson(h.app, "/v1/run", marketsRun(), bearer(owner.key))).status).toBe(200);
    await h.close();
  }, 120_000);

  test("a cap that a price does not divide: the run that would pass it is refused, the spend stays under it", async ({
    db,
  }) => {
    const upstream = new FakeUpstreamClient();
    const h = gatewayHarness(db, { upstream, toolPrices: configuredPrices({ [MARKETS_EVENT]: "0.03" }) });
    const owner = await openAccount(db, TEN_USD);
    const capped = await keyWithPolicy(db, owner, { dailyCapMicro: CAP_MICRO });
    for (let n = 0; n < 3; n += 1) {
      expect((await postJson(h.app, "/v1/run", marketsRun(), bearer(capped.key))).status).toBe(200);
    }
    const refused = await postJson(h.app, "/v1/run", marketsRun(), bearer(capped.key));
    expect(refused.status).toBe(402);
    expect(await json(refused)).toMatchObject({ cap: { amount: "0.1" }, spent: { amount: "0.09" } });
    await h.deps.held.flush(); // priced runs are settled behind their answers
    expect(await ledgerSpendOf(db, capped.keyId)).toBe(90_000n);
    await h.close();
  });

  test("a run refunded (its upstream failed) gives its spend back: the key can spend it again", async ({
    db,
  }) => {
    let failNext = true;
    const upstream = new FakeUpstreamClient(() => {
      const failed = failNext;
      failNext = false;
      return jsonAnswer(failed ? 503 : 200, { ok: !failed });
    });
    const h = gatewayHarness(db, { upstream, toolPrices: configuredPrices() });
    const owner = await openAccount(db, TEN_USD);
    const capped = await keyWithPolicy(db, owner, { dailyCapMicro: 20_000n });

    const failed = await json(await postJson(h.app, "/v1/run", marketsRun(), bearer(capped.key)));
    expect(failed).toMatchObject({ upstream: { status: 503 }, cost: { amount: "0" } });
    await h.deps.held.flush(); // priced runs are settled behind their answers
    expect(await spendCounters(db, capped.keyId)).toEqual({ "": 0n, [MARKETS_EVENT]: 0n });

    for (let n = 0; n < 2; n += 1) {
      expect((await postJson(h.app, "/v1/run", marketsRun(), bearer(capped.key))).status).toBe(200);
    }
    expect((await postJson(h.app, "/v1/run", marketsRun(), bearer(capped.key))).status).toBe(402);
    await h.deps.held.flush(); // priced runs are settled behind their answers
    expect(await ledgerSpendOf(db, capped.keyId)).toBe(20_000n);
    expect(await spendCounters(db, capped.keyId)).toEqual({ "": 20_000n, [MARKETS_EVENT]: 20_000n });
    await h.close();
  });

  test("a cap set after the key spent today counts what it spent: 0.05 spent, a 0.06 cap leaves one run", async ({
    db,
  }) => {
    const h = gatewayHarness(db, { upstream: new FakeUpstreamClient(), toolPrices: configuredPrices() });
    const key = await openAccount(db, TEN_USD);
    for (let n = 0; n < 5; n += 1) {
      expect((await postJson(h.app, "/v1/run", marketsRun(), bearer(key.key))).status).toBe(200);
    }
    await new KeyPolicyStore(db).change(key.keyId, { dailyCapMicro: 60_000n });
    expect((await postJson(h.app, "/v1/run", marketsRun(), bearer(key.key))).status).toBe(200);
    expect((await postJson(h.app, "/v1/run", marketsRun(), bearer(key.key))).status).toBe(402);
    await h.deps.held.flush(); // priced runs are settled behind their answers
    expect(await ledgerSpendOf(db, key.keyId)).toBe(60_000n);
    await h.close();
  });
});

describe("a key's daily cap per tool", () => {
  test("caps one tool's spend while the key's other tools and its daily total go on", async ({ db }) => {
    const upstream = new FakeUpstreamClient();
    const h = gatewayHarness(db, {
      upstream,
      toolPrices: configuredPrices({ [MARKETS_EVENT]: "0.01", [LIST_POSTS]: "0.02" }),
    });
    const owner = await openAccount(db, TEN_USD);
    const capped = await keyWithPolicy(db, owner, {
      dailyCapMicro: CAP_MICRO,
      toolCapsMicro: { [MARKETS_EVENT]: 20_000n },
    });
    const posts = { ...bearer(capped.key), "x-upstream-key": "pub_key_0123456789" };

    for (let n = 0; n < 2; n += 1) {
      expect((await postJson(h.app, "/v1/run", marketsRun(), bearer(capped.key))).status).toBe(200);
    }
    const refused = await postJson(h.app, "/v1/run", marketsRun(), bearer(capped.key));
    expect(refused.status).toBe(402);
    expect(await json(refused)).toEqual({
      error: "SPEND_CAP_REACHED",
      message:
        "This run would take the gateway key past its daily spend cap on this tool; nothing was charged.",
      scope: "tool",
      cap: { amount: "0.02", currency: "USD" },
      spent: { amount: "0.02", currency: "USD" },
      price: { amount: "0.01", currency: "USD" },
      resetsAt: nextUtcMidnight(),
    });

    // Its other tool runs on, up to the key's daily total: 0.02 + 4 × 0.02 = 0.10.
    for (let n = 0; n < 4; n += 1) {
      expect((await postJson(h.app, "/v1/run", listPostsRun(), posts)).status).toBe(200);
    }
    const overTotal = await postJson(h.app, "/v1/run", listPostsRun(), posts);
    expect(overTotal.status).toBe(402);
    expect(await json(overTotal)).toMatchObject({ scope: "key", spent: { amount: "0.1" } });
    expect(upstream.requests).toHaveLength(6);
    await h.deps.held.flush(); // priced runs are settled behind their answers
    expect(await spendCounters(db, capped.keyId)).toEqual({
      "": CAP_MICRO,
      [MARKETS_EVENT]: 20_000n,
      [LIST_POSTS]: 80_000n,
    });
    await h.close();
  });
});

import { json, test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { parseUsd } from "../../src/domain/money.ts";
import { AccountStore } from "../../src/store/accounts.ts";
import { addToBalance, credit } from "../../src/store/ledger.ts";
import type { FakeServer } from "../support/fake-upstreams.ts";
import { gatewayHarness, openAccount } from "../support/harness.ts";
import { PRICED_PROVIDER, pricedRun, pricedUpstream } from "../support/priced.ts";
import { allPages, fakeMarkets, getWithKey, marketsRun, run } from "./support.ts";

let markets: FakeServer;
let priced: FakeServer;
beforeAll(async () => {
  [markets, priced] = await Promise.all([fakeMarkets(), pricedUpstream()]);
});
afterAll(async () => {
  await Promise.all([markets.close(), priced.close()]);
});

type Usd = { amount: string; currency: "USD" };
type LedgerItem = {
  id: string;
  kind: "credit" | "run" | "refund";
  amount: Usd;
  balanceAfter: Usd;
  createdAt: string;
  note: string | null;
  run: {
    id: string;
    provider: string;
    endpoint: string;
    method: string;
    idempotencyKey: string | null;
    requestId: string | null;
    price: Usd;
  } | null;
  settlement: { protocol: string; reference: string | null; transactionHash: string | null } | null;
};
type RunItem = {
  id: string;
  provider: string;
  endpoint: string;
  method: string;
  key: { id: string; prefix: string };
  status: string;
  cost: Usd;
  ledger: { charge: string | null; refund: string | null };
};

const micro = (amount: Usd) => {
  const negative = amount.amount.startsWith("-");
  const value = parseUsd(negative ? amount.amount.slice(1) : amount.amount);
  if (value === undefined) throw new Error(`not an amount: ${amount.amount}`);
  return negative ? -value : value;
};

const TRANSACTION = `0x${"ab".repeat(32)}`;

/** An account with two keys, a bought credit and an operator's, and runs of both keys: free, paid, refunded. */
async function accountWithHistory(db: Parameters<typeof gatewayHarness>[0]) {
  const gateway = gatewayHarness(db, {
    extraProviders: [PRICED_PROVIDER],
    urls: { markets: markets.url, priced: priced.url },
  });
  const first = await openAccount(db, 2_000_000n);
  const second = await new AccountStore(db).issueKey(first.accountId, "second");
  await db.transaction((tx) =>
    addToBalance(tx, {
      accountId: first.accountId,
      amountMicro: 500_000n,
      kind: "credit",
      settlement: {
        protocol: "x402",
        reference: `eip155:8453:eip3009:0xtoken:0xpayer:${first.accountId}`,
        transaction: TRANSACTION,
      },
    }),
  );
  const stranger = await openAccount(db, 1_000_000n);
  const runs = [
    await run(gateway.app, first.key, pricedRun(), {
      "idempotency-key": "ledger-idem-1",
      "x-request-id": "ledger-req-1",
    }),
    await run(gateway.app, first.key, pricedRun("502")),
    await run(gateway.app, first.key, marketsRun("a")),
    await run(gateway.app, second.key, pricedRun()),
    await run(gateway.app, second.key, marketsRun("404")),
    await run(gateway.app, second.key, marketsRun("b")),
    await run(gateway.app, stranger.key, pricedRun()),
  ];
  for (const ran of runs) expect(ran.status).toBe(200);
  await credit(db, first.accountId, 250_000n, "top-up by the operator");
  await gateway.deps.usage.flush();
  await gateway.deps.held.flush();
  return { gateway, first, second, stranger, runs };
}

describe("GET /v1/ledger", () => {
  test("exports every ledger row of the account, newest first, a page at a time, each linked to its run or payment", async ({
    db,
  }) => {
    const { gateway, first, stranger, runs } = await accountWithHistory(db);
    const { items, pages } = await allPages<LedgerItem>(gateway.app, "/v1/ledger", first.key, "entries", 3);
    // Two credits at opening and purchase, seven run rows (one refund among them), one operator credit.
    expect(items.map((item) => item.kind).sort()).toEqual(
      ["credit", "credit", "credit", "refund", "run", "run", "run", "run", "run", "run"].sort(),
    );
    expect(pages.map((page) => page.length)).toEqual([3, 3, 3, 1]);
    const ids = items.map((item) => BigInt(item.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    expect(new Set(ids).size).toBe(ids.length);
    const [stored] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM gateway.ledger WHERE account_id = $1",
      [first.accountId],
    );
    expect(items).toHaveLength(stored?.n ?? -1);

    // Balances reconcile: each row's balance is the one before it plus its amount, ending at the balance.
    const oldestFirst = [...items].reverse();
    let balance = 0n;
    for (const item of oldestFirst) {
      balance += micro(item.amount);
      expect(micro(item.balanceAfter), item.id).toBe(balance);
    }
    const account = await new AccountStore(db).get(first.accountId);
    expect(balance).toBe(account?.balanceMicro);

    const bought = items.find((item) => item.settlement !== null);
    expect(bought).toMatchObject({
      kind: "credit",
      amount: { amount: "0.5", currency: "USD" },
      run: null,
      settlement: {
        protocol: "x402",
        transactionHash: TRANSACTION,
        reference: expect.stringContaining("eip155"),
      },
    });
    expect(items.find((item) => item.note === "top-up by the operator")).toMatchObject({
      kind: "credit",
      settlement: null,
      run: null,
    });

    const runsListed = (await allPages<RunItem>(gateway.app, "/v1/runs", first.key, "runs", 100)).items;
    expect(runsListed).toHaveLength(6);
    for (const listed of runsListed) {
      const charge = items.find((item) => item.id === listed.ledger.charge);
      expect(charge, listed.id).toMatchObject({
        kind: "run",
        run: { id: listed.id, provider: listed.provider, endpoint: listed.endpoint, method: listed.method },
      });
      const refund = items.find((item) => item.kind === "refund" && item.run?.id === listed.id);
      expect(refund?.id ?? null).toBe(listed.ledger.refund);
    }
    const paid = items.find((item) => item.run?.id === runs[0]?.body.runId);
    expect(paid).toMatchObject({
      kind: "run",
      amount: { amount: "-0.25" },
      run: {
        provider: "priced",
        endpoint: "/echo",
        method: "GET",
        idempotencyKey: "ledger-idem-1",
        requestId: "ledger-req-1",
        price: { amount: "0.25", currency: "USD" },
      },
    });
    const refunded = items.filter((item) => item.run?.id === runs[1]?.body.runId).map((item) => item.kind);
    expect(refunded.sort()).toEqual(["refund", "run"]);

    const theirs = await allPages<LedgerItem>(gateway.app, "/v1/ledger", stranger.key, "entries", 100);
    expect(theirs.items.map((item) => item.kind).sort()).toEqual(["credit", "run"]);
    for (const item of theirs.items) expect(ids).not.toContain(BigInt(item.id));
    await gateway.close();
  });

  test("refuses unknown parameters, bad limits and cursors it did not issue", async ({ db }) => {
    const { app, close } = gatewayHarness(db);
    const caller = await openAccount(db, 1n);
    const runsCursor = Buffer.from(JSON.stringify(["runs", "1", "run_x"])).toString("base64url");
    for (const query of [
      "?status=credit",
      "?limit=0",
      "?limit=500",
      "?cursor=%%%",
      `?cursor=${runsCursor}`,
    ]) {
      const res = await getWithKey(app, `/v1/ledger${query}`, caller.key);
      expect(res.status, query).toBe(400);
      expect((await json(res)).error).toBe("INVALID_INPUT");
    }
    expect((await app.request("/v1/ledger")).status).toBe(401);
    await close();
  });
});

describe("GET /v1/usage", () => {
  test("totals the period's runs per tool and per key, their costs as the ledger has them", async ({
    db,
  }) => {
    const { gateway, first, second } = await accountWithHistory(db);
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const res = await getWithKey(gateway.app, `/v1/usage?from=${from}&to=${to}`, first.key);
    expect(res.status).toBe(200);
    const usage = await json(res);
    expect([usage.from, usage.to]).toEqual([from, to]);
    expect(usage.total).toEqual({ runs: 6, errors: 2, cost: { amount: "0.5", currency: "USD" } });
    expect(usage.tools).toEqual([
      {
        provider: "markets",
        endpoint: "/pm/event",
        method: "GET",
        runs: 3,
        errors: 1,
        cost: { amount: "0", currency: "USD" },
      },
      {
        provider: "priced",
        endpoint: "/echo",
        method: "GET",
        runs: 3,
        errors: 1,
        cost: { amount: "0.5", currency: "USD" },
      },
    ]);
    expect(usage.keys).toHaveLength(2);
    expect(usage.keys).toEqual(
      expect.arrayContaining([
        {
          key: { id: first.keyId, prefix: expect.any(String) },
          runs: 3,
          cost: { amount: "0.25", currency: "USD" },
        },
        {
          key: { id: second.id, prefix: expect.any(String) },
          runs: 3,
          cost: { amount: "0.25", currency: "USD" },
        },
      ]),
    );

    // The same figures from the ledger export and the run list.
    const ledger = (await allPages<LedgerItem>(gateway.app, "/v1/ledger", first.key, "entries", 100)).items;
    const runs = (await allPages<RunItem>(gateway.app, "/v1/runs", first.key, "runs", 100)).items;
    const spentOn = (pick: (listed: RunItem) => boolean) =>
      -ledger
        .filter((item) => item.run && pick(runs.find((listed) => listed.id === item.run?.id) as RunItem))
        .reduce((sum, item) => sum + micro(item.amount), 0n);
    for (const tool of usage.tools) {
      expect(micro(tool.cost)).toBe(
        spentOn((listed) => listed.provider === tool.provider && listed.endpoint === tool.endpoint),
      );
    }
    for (const key of usage.keys)
      expect(micro(key.cost)).toBe(spentOn((listed) => listed.key.id === key.key.id));
    expect(micro(usage.total.cost)).toBe(spentOn(() => true));

    const empty = await json(
      await getWithKey(gateway.app, "/v1/usage?from=2020-01-01&to=2020-02-01T00:00:00Z", first.key),
    );
    expect(empty).toEqual({
      from: "2020-01-01T00:00:00.000Z",
      to: "2020-02-01T00:00:00.000Z",
      total: { runs: 0, errors: 0, cost: { amount: "0", currency: "USD" } },
      tools: [],
      keys: [],
    });
    const month = await json(await getWithKey(gateway.app, "/v1/usage", first.key));
    expect(month.from).toMatch(/^\d{4}-\d{2}-01T00:00:00\.000Z$/);
    expect(month.to).toMatch(/^\d{4}-\d{2}-01T00:00:00\.000Z$/);
    await gateway.close();
  });

  test("refuses periods it cannot read, reversed or longer than 366 days, and unknown parameters", async ({
    db,
  }) => {
    const { app, close } = gatewayHarness(db);
    const caller = await openAccount(db);
    for (const query of [
      "?from=yesterday",
      "?from=2026-02-30",
      "?from=2026-05-01T25:00:00Z",
      "?from=2026-05-01T10:00:00",
      "?from=2026-05-02&to=2026-05-01",
      "?from=2026-05-01T00:00:00Z&to=2026-05-01T00:00:00Z",
      "?from=2025-01-01&to=2026-01-02",
      "?from=2026-05-01&until=2026-06-01",
      "?from=2026-05-01&from=2026-05-02",
    ]) {
      const res = await getWithKey(app, `/v1/usage${query}`, caller.key);
      expect(res.status, query).toBe(400);
      expect((await json(res)).error).toBe("INVALID_INPUT");
    }
    // A date alone as `to` is the end of that day: 2025 and the first day of 2026 are 366 days.
    expect((await getWithKey(app, "/v1/usage?from=2025-01-01&to=2026-01-01", caller.key)).status).toBe(200);
    expect((await app.request("/v1/usage")).status).toBe(401);
    await close();
  });
});

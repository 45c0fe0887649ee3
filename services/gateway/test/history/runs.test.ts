import { json, test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { runCli } from "../../src/cli/run.ts";
import { closedPortUrl, type FakeServer, fakeShop } from "../support/fake-upstreams.ts";
import { bearer, gatewayHarness, openAccount } from "../support/harness.ts";
import { callTool, connectMcp } from "../support/mcp-client.ts";
import { PRICED_PROVIDER, pricedRun, pricedUpstream } from "../support/priced.ts";
import { serveGateway } from "../support/served.ts";
import { allPages, EXACT_OUTPUT, fakeMarkets, getWithKey, marketsRun, run } from "./support.ts";

const SHOP_KEY = "shopkey_history_1";
const SHOP_RUN = { provider: "shop", endpoint: "/api/shops/agent-availability", method: "GET", input: {} };

let markets: FakeServer;
let shop: FakeServer;
let priced: FakeServer;
beforeAll(async () => {
  [markets, shop, priced] = await Promise.all([fakeMarkets(), fakeShop(SHOP_KEY), pricedUpstream()]);
});
afterAll(async () => {
  await Promise.all([markets.close(), shop.close(), priced.close()]);
});

const pause = () => new Promise((resolve) => setTimeout(resolve, 3));

type RunItem = {
  id: string;
  provider: string;
  status: string;
  createdAt: string;
  upstream: { status: number | null };
  key: { id: string; prefix: string };
  ledger: { charge: string | null; refund: string | null };
  [field: string]: unknown;
};

describe("GET /v1/runs", () => {
  test("pages through the account's runs newest first, without duplicates or gaps, filtered by provider and status", async ({
    db,
  }) => {
    const gateway = gatewayHarness(db, {
      extraProviders: [PRICED_PROVIDER],
      urls: { markets: markets.url, shop: shop.url, priced: priced.url },
    });
    const unreachable = gatewayHarness(db, { urls: { markets: await closedPortUrl() } });
    const caller = await openAccount(db, 10_000_000n);
    const other = await openAccount(db, 10_000_000n);
    const withShopKey = { "x-upstream-key": SHOP_KEY };

    // In order; `undefined` for the run whose 502 names no run id.
    const made: Array<{ id: string | undefined; provider: string; status: string }> = [];
    const plan: Array<[string, () => ReturnType<typeof run>, string]> = [
      ["markets", () => run(gateway.app, caller.key, marketsRun("a")), "succeeded"],
      ["markets", () => run(gateway.app, caller.key, marketsRun("404")), "upstream_error"],
      ["shop", () => run(gateway.app, caller.key, SHOP_RUN, withShopKey), "succeeded"],
      [
        "priced",
        () =>
          run(gateway.app, caller.key, pricedRun(), {
            "idempotency-key": "idem-history-1",
            "x-request-id": "req-history-1",
          }),
        "succeeded",
      ],
      ["priced", () => run(gateway.app, caller.key, pricedRun("500")), "upstream_error"],
      ["markets", () => run(gateway.app, caller.key, marketsRun("b")), "succeeded"],
      ["markets", () => run(gateway.app, caller.key, marketsRun("503")), "upstream_error"],
      ["markets", () => run(unreachable.app, caller.key, marketsRun("c")), "upstream_unavailable"],
      ["shop", () => run(gateway.app, caller.key, SHOP_RUN, withShopKey), "succeeded"],
      ["markets", () => run(gateway.app, caller.key, marketsRun("d")), "succeeded"],
    ];
    for (const [provider, go, status] of plan) {
      const ran = await go();
      expect(ran.status).toBe(status === "upstream_unavailable" ? 502 : 200);
      made.push({ id: ran.body.runId, provider, status });
      await pause();
    }
    await run(gateway.app, other.key, marketsRun("theirs"));
    await gateway.deps.usage.flush();
    await unreachable.deps.usage.flush();

    const { items, pages } = await allPages<RunItem>(gateway.app, "/v1/runs", caller.key, "runs", 4);
    expect(pages.map((page) => page.length)).toEqual([4, 4, 2]);
    const newestFirst = [...made].reverse();
    expect(items.map((item) => item.provider)).toEqual(newestFirst.map((m) => m.provider));
    expect(items.map((item) => item.status)).toEqual(newestFirst.map((m) => m.status));
    newestFirst.forEach((m, index) => {
      if (m.id) expect(items[index]?.id).toBe(m.id);
    });
    expect(new Set(items.map((item) => item.id)).size).toBe(10);
    const times = items.map((item) => Date.parse(item.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const filtered = async (query: string) =>
      (await allPages<RunItem>(gateway.app, `/v1/runs?${query}`, caller.key, "runs", 2)).items.map(
        (i) => i.id,
      );
    const idsWhere = (pick: (m: (typeof made)[number]) => boolean) =>
      items
        .filter((_item, index) => pick(newestFirst[index] as (typeof made)[number]))
        .map((item) => item.id);
    expect(await filtered("provider=markets")).toEqual(idsWhere((m) => m.provider === "markets"));
    expect(await filtered("status=upstream_error")).toEqual(idsWhere((m) => m.status === "upstream_error"));
    expect(await filtered("provider=shop&status=succeeded")).toEqual(
      idsWhere((m) => m.provider === "shop" && m.status === "succeeded"),
    );
    expect(await filtered("status=upstream_unavailable")).toHaveLength(1);
    expect(await filtered("status=running")).toEqual([]);
    expect(await filtered("provider=nobody")).toEqual([]);

    const charged = items.find((item) => item.id === made[3]?.id);
    expect(charged).toMatchObject({
      provider: "priced",
      endpoint: "/echo",
      method: "GET",
      key: { id: caller.keyId },
      status: "succeeded",
      upstream: { status: 200 },
      price: { amount: "0.25", currency: "USD" },
      cost: { amount: "0.25", currency: "USD" },
      idempotencyKey: "idem-history-1",
      requestId: "req-history-1",
      ledger: { refund: null },
    });
    expect(charged?.ledger).toMatchObject({ charge: expect.stringMatching(/^\d+$/) });
    expect(typeof charged?.durationMs).toBe("number");
    expect(Date.parse(String(charged?.finishedAt))).toBeGreaterThanOrEqual(
      Date.parse(String(charged?.createdAt)),
    );
    const prefix = charged?.key.prefix ?? "";
    expect(caller.key.startsWith(prefix) && prefix.length < caller.key.length).toBe(true);

    const refunded = items.find((item) => item.id === made[4]?.id);
    expect(refunded).toMatchObject({
      status: "upstream_error",
      upstream: { status: 500 },
      price: { amount: "0.25" },
      cost: { amount: "0" },
      idempotencyKey: null,
      requestId: expect.any(String),
    });
    expect(refunded?.ledger.refund).toMatch(/^\d+$/);
    const failed = items.find((item) => item.status === "upstream_unavailable");
    expect(failed).toMatchObject({ upstream: { status: null }, cost: { amount: "0" }, provider: "markets" });
    for (const item of items) expect(item).not.toHaveProperty("output");

    await gateway.close();
    await unreachable.close();
  });

  test("refuses what it does not take: unknown parameters, bad limits and statuses, cursors it did not issue", async ({
    db,
  }) => {
    const { app, close } = gatewayHarness(db);
    const caller = await openAccount(db);
    const ledgerCursor = Buffer.from(JSON.stringify(["ledger", "5"])).toString("base64url");
    for (const query of [
      "?foo=1",
      "?limit=0",
      "?limit=101",
      "?limit=ten",
      "?status=completed",
      "?provider=a%00b",
      "?cursor=not-a-cursor!",
      "?cursor=abc",
      `?cursor=${ledgerCursor}`,
      "?limit=1&limit=2",
    ]) {
      const res = await getWithKey(app, `/v1/runs${query}`, caller.key);
      expect(res.status, query).toBe(400);
      expect((await json(res)).error, query).toBe("INVALID_INPUT");
    }
    expect((await app.request("/v1/runs")).status).toBe(401);
    expect((await getWithKey(app, "/v1/runs", caller.key)).status).toBe(200);
    await close();
  });
});

describe("GET /v1/runs/{id}", () => {
  test("shows one of the account's runs; another account's run, or no run, is 404 RUN_NOT_FOUND", async ({
    db,
  }) => {
    const gateway = gatewayHarness(db, { extraProviders: [PRICED_PROVIDER], urls: { priced: priced.url } });
    const caller = await openAccount(db, 1_000_000n);
    const other = await openAccount(db, 1_000_000n);
    const ran = await run(gateway.app, caller.key, pricedRun("500"), { "idempotency-key": "detail-1" });
    expect(ran.status).toBe(200);

    const res = await getWithKey(gateway.app, `/v1/runs/${ran.body.runId}`, caller.key);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const detail = await json(res);
    expect(detail).toMatchObject({
      id: ran.body.runId,
      provider: "priced",
      status: "upstream_error",
      upstream: { status: 500 },
      cost: ran.body.cost,
      idempotencyKey: "detail-1",
    });
    expect(detail).not.toHaveProperty("output");

    for (const [key, id] of [
      [other.key, ran.body.runId],
      [caller.key, "run_doesnotexist"],
      [caller.key, "run%00x"],
      [caller.key, "..%2F..%2Fledger"],
    ] as const) {
      const missing = await getWithKey(gateway.app, `/v1/runs/${id}`, key);
      expect(missing.status, id).toBe(404);
      expect((await json(missing)).error).toBe("RUN_NOT_FOUND");
    }
    expect((await getWithKey(gateway.app, `/v1/runs/${ran.body.runId}?x=1`, caller.key)).status).toBe(400);
    expect((await gateway.app.request(`/v1/runs/${ran.body.runId}`)).status).toBe(401);
    await gateway.close();
  });

  test("shows the output only for an account that keeps outputs (set with the CLI), exactly as the envelope showed it", async ({
    db,
  }) => {
    const gateway = gatewayHarness(db, {
      extraProviders: [PRICED_PROVIDER],
      urls: { markets: markets.url, priced: priced.url },
    });
    const keeping = await openAccount(db, 1_000_000n);
    const notKeeping = await openAccount(db, 1_000_000n);
    const cli = async (...argv: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(argv, {
        openDatabase: async () => ({ ...db, close: async () => undefined }),
        io: { out: (text) => out.push(text), err: (text) => err.push(text) },
      });
      return { code, out: out.join("\n"), err: err.join("\n") };
    };
    const set = await cli(
      "accounts",
      "settings",
      "--account",
      keeping.accountId,
      "--keep-run-output",
      "true",
    );
    expect(set.code).toBe(0);
    expect(JSON.parse(set.out)).toEqual({ account: keeping.accountId, keepRunOutput: true });
    expect(
      (await cli("accounts", "settings", "--account", keeping.accountId, "--keep-run-output", "yes")).code,
    ).toBe(1);
    expect(
      (await cli("accounts", "settings", "--account", "acct_none", "--keep-run-output", "true")).code,
    ).toBe(1);

    for (const account of [keeping, notKeeping]) {
      const free = await run(gateway.app, account.key, marketsRun("exact"));
      const paid = await run(gateway.app, account.key, pricedRun());
      expect(free.text).toContain(`"output":${EXACT_OUTPUT},`);
      await gateway.deps.usage.flush();
      for (const ran of [free, paid]) {
        const res = await getWithKey(gateway.app, `/v1/runs/${ran.body.runId}`, account.key);
        expect(res.status).toBe(200);
        const text = await res.text();
        if (account === keeping) {
          const output = ran.text.slice(ran.text.indexOf('"output":') + 9, ran.text.indexOf(',"cost":'));
          expect(text.endsWith(`,"output":${output}}`)).toBe(true);
        } else {
          expect(JSON.parse(text)).not.toHaveProperty("output");
        }
      }
    }
    const stored = await db.query<{ account_id: string; kept: number }>(
      `SELECT account_id, count(output)::int AS kept FROM gateway.runs
       WHERE account_id = ANY($1::text[]) GROUP BY account_id`,
      [[keeping.accountId, notKeeping.accountId]],
    );
    expect(Object.fromEntries(stored.map((row) => [row.account_id, row.kept]))).toEqual({
      [keeping.accountId]: 2,
      [notKeeping.accountId]: 0,
    });
    expect((await gateway.app.request("/v1/runs", { headers: bearer(keeping.key) })).status).toBe(200);
    await gateway.close();
  });

  test("records an MCP run's request id and idempotency key, as for /v1/run", async ({ db }) => {
    const gateway = await serveGateway(db, {
      extraProviders: [PRICED_PROVIDER],
      urls: { priced: priced.url },
    });
    const caller = await openAccount(db, 1_000_000n);
    const client = await connectMcp(gateway.url, {
      ...bearer(caller.key),
      "x-request-id": "mcp-history-req",
    });
    const plain = await callTool(client, "run", pricedRun());
    const keyed = await callTool(client, "run", { ...pricedRun(), idempotencyKey: "mcp-history-idem" });
    await client.close();
    for (const [ran, idempotencyKey] of [
      [plain, null],
      [keyed, "mcp-history-idem"],
    ] as const) {
      expect(ran.isError).toBe(false);
      const detail = await json(await getWithKey(gateway.app, `/v1/runs/${ran.body.runId}`, caller.key));
      expect(detail).toMatchObject({ requestId: "mcp-history-req", idempotencyKey, status: "succeeded" });
    }
    await gateway.close();
  });
});

import { ConfigError } from "@app/core";
import { json, test } from "@app/testkit";
import { describe, expect, test as plainTest } from "vitest";
import { loadGatewayConfig } from "../../src/config.ts";
import { configuredRegistry } from "../../src/service.ts";
import { ledgerOf } from "../../src/store/ledger.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";
import { startRealMarkets } from "../support/markets.ts";
import { callTool, connectMcp } from "../support/mcp-client.ts";
import { serveGateway } from "../support/served.ts";
import { configuredPrices, keyWithPolicy, MARKETS_EVENT, marketsRun } from "./policy-support.ts";

const MARKETS_TOOL = { provider: "markets", endpoint: "/pm/event", method: "GET" };
const ONE_CENT = { amount: "0.01", currency: "USD" };

/** The problems a start with these prices would stop on. */
function problemsOf(prices: string): string[] {
  try {
    loadGatewayConfig({ GATEWAY_TOOL_PRICES: prices });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("GATEWAY_TOOL_PRICES", () => {
  plainTest(
    "prices the tools it names, by their names, exactly; the others keep their declared price",
    () => {
      const config = loadGatewayConfig({ GATEWAY_TOOL_PRICES: '{"markets /pm/event GET": "0.000001"}' });
      expect(config.toolPrices).toEqual(new Map([[MARKETS_EVENT, 1n]]));
      const registry = configuredRegistry(config);
      expect(registry.find("markets", "/pm/event", "GET")?.priceMicro).toBe(1n);
      expect(registry.find("shop", "/api/shops/agent-availability", "GET")?.priceMicro).toBe(0n);
      expect(loadGatewayConfig({}).toolPrices.size).toBe(0);
    },
  );

  plainTest(
    "is read strictly: anything but an object of declared tools and decimal strings stops the start",
    () => {
      expect(problemsOf("markets=0.01")).toEqual([
        'GATEWAY_TOOL_PRICES: is not JSON: write an object such as {"markets /pm/event GET": "0.01"}',
      ]);
      expect(problemsOf('["markets /pm/event GET"]')).toEqual([
        'GATEWAY_TOOL_PRICES: must be a JSON object such as {"markets /pm/event GET": "0.01"}',
      ]);
      expect(problemsOf('{"markets /pm/events GET": "0.01"}')).toEqual([
        expect.stringMatching(
          /^GATEWAY_TOOL_PRICES: "markets \/pm\/events GET" names no tool: .*markets \/pm\/event GET/,
        ),
      ]);
      expect(problemsOf('{"markets /pm/event get": "0.01"}')[0]).toContain("names no tool");
      for (const price of ["0.01", '"0.0000001"', '"-1"', '"1e-2"', '""', '" 0.01"']) {
        expect(problemsOf(`{"markets /pm/event GET": ${price}}`)).toEqual([
          'GATEWAY_TOOL_PRICES: the price of "markets /pm/event GET" must be a decimal USD string with at most 6 decimals, like "0.01"',
        ]);
      }
    },
  );
});

describe("a tool priced by configuration", () => {
  test("shows its price in the catalog and inspect, over HTTP and MCP, and a run is charged it", async ({
    db,
  }) => {
    const markets = await startRealMarkets(db);
    const gateway = await serveGateway(db, {
      urls: { markets: markets.url },
      toolPrices: configuredPrices(),
    });
    const caller = await openAccount(db, 1_000_000n);

    const catalog = await json(
      await gateway.app.request("/v1/providers/markets", { headers: bearer(caller.key) }),
    );
    expect(catalog.tools[0].price).toEqual(ONE_CENT);
    const inspected = await json(
      await postJson(gateway.app, "/v1/inspect", MARKETS_TOOL, bearer(caller.key)),
    );
    expect(inspected.price).toEqual(ONE_CENT);
    const client = await connectMcp(gateway.url, bearer(caller.key));
    expect((await callTool(client, "inspect", MARKETS_TOOL)).body.price).toEqual(ONE_CENT);

    const ran = await postJson(
      gateway.app,
      "/v1/run",
      marketsRun(markets.sampleRefs.slug),
      bearer(caller.key),
    );
    expect(ran.status).toBe(200);
    expect(await json(ran)).toMatchObject({
      upstream: { status: 200 },
      cost: ONE_CENT,
      balance: { amount: "0.99", currency: "USD" },
    });
    const overMcp = await callTool(client, "run", marketsRun(markets.sampleRefs.slug));
    expect(overMcp.body).toMatchObject({ cost: ONE_CENT, balance: { amount: "0.98", currency: "USD" } });
    await gateway.deps.held.flush(); // priced runs are settled behind their answers
    const ledger = await ledgerOf(db, caller.accountId);
    expect(ledger.filter((entry) => entry.kind === "run").map((entry) => entry.amountMicro)).toEqual([
      -10_000n,
      -10_000n,
    ]);
    await client.close();
    await gateway.close();
    await markets.close();
  });

  test("the priced markets tool runs against the real markets service until its key's cap: 3 runs of 0.01 under a 0.03 cap", async ({
    db,
  }) => {
    const markets = await startRealMarkets(db);
    const h = gatewayHarness(db, { urls: { markets: markets.url }, toolPrices: configuredPrices() });
    const owner = await openAccount(db, 1_000_000n);
    const capped = await keyWithPolicy(db, owner, { dailyCapMicro: 30_000n });
    const statuses: number[] = [];
    for (let n = 0; n < 4; n += 1) {
      statuses.push(
        (await postJson(h.app, "/v1/run", marketsRun(markets.sampleRefs.slug), bearer(capped.key))).status,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 402]);
    await h.close();
    await markets.close();
  });
});

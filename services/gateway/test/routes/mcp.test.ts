import { type RunningServer, serveApp } from "@app/core";
import type { Database } from "@app/db";
import { json, test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { PROVIDERS } from "../../src/registry/providers.ts";
import {
  closedPortUrl,
  type FakeServer,
  fakePublisher,
  fakeShop,
  silentUpstream,
} from "../support/fake-upstreams.ts";
import { bearer, gatewayHarness, type HarnessOptions, openAccount, postJson } from "../support/harness.ts";
import { startRealMarkets } from "../support/markets.ts";
import { callTool, connectMcp } from "../support/mcp-client.ts";

const SHOP_KEY = "shk_mcp_shop_key_0123456789";
const API_KEY = "pub_mcp_api_key_0123456789";

let shop: FakeServer;
let publisher: FakeServer;

beforeAll(async () => {
  [shop, publisher] = await Promise.all([fakeShop(SHOP_KEY), fakePublisher(API_KEY)]);
});
afterAll(async () => {
  await Promise.all([shop.close(), publisher.close()]);
});

/** The gateway served on a loopback port, its upstreams the fakes (and the real markets when given). */
async function servedGateway(db: Database, options: HarnessOptions = {}) {
  const h = gatewayHarness(db, {
    ...options,
    urls: { shop: shop.url, publisher: publisher.url, ...options.urls },
  });
  const server: RunningServer = await serveApp(h.app as never, { host: "127.0.0.1", port: 0 });
  return {
    ...h,
    url: server.url,
    async close() {
      await server.close();
      await h.close();
    },
  };
}

describe("MCP at /mcp", () => {
  describe("success", () => {
    test("offers exactly the tools inspect and run", async ({ db }) => {
      const gateway = await servedGateway(db);
      const caller = await openAccount(db);
      const client = await connectMcp(gateway.url, bearer(caller.key));
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(["inspect", "run"]);
      const run = tools.find((tool) => tool.name === "run");
      expect(Object.keys(run?.inputSchema.properties ?? {}).sort()).toEqual([
        "endpoint",
        "idempotencyKey",
        "input",
        "method",
        "provider",
        "upstreamKey",
      ]);
      await client.close();
      await gateway.close();
    });

    test("inspect describes every tool exactly as the HTTP inspect does", async ({ db }) => {
      const gateway = await servedGateway(db);
      const caller = await openAccount(db);
      const client = await connectMcp(gateway.url, bearer(caller.key));
      for (const provider of PROVIDERS) {
        for (const tool of provider.tools) {
          const named = { provider: provider.id, endpoint: tool.endpoint, method: tool.method };
          const result = await callTool(client, "inspect", named);
          expect(result.isError).toBe(false);
          expect(result.structured).toEqual(result.body);
          expect(result.body).toEqual(
            await json(await postJson(gateway.app, "/v1/inspect", named, bearer(caller.key))),
          );
        }
      }
      await client.close();
      await gateway.close();
    });

    test("run runs every tool and answers the run envelope as JSON text and structured content", async ({
      db,
    }) => {
      const markets = await startRealMarkets(db);
      const gateway = await servedGateway(db, { urls: { markets: markets.url } });
      const caller = await openAccount(db);
      const client = await connectMcp(gateway.url, bearer(caller.key));
      const runs: [Record<string, unknown>, (output: Record<string, unknown>) => void][] = [
        [
          { provider: "shop", endpoint: "/api/shops/agent-availability", input: {}, upstreamKey: SHOP_KEY },
          (output) => expect(output.services).toHaveLength(1),
        ],
        [
          {
            provider: "publisher",
            endpoint: "/api/v1/posts",
            input: { queryParams: { limit: 5 } },
            upstreamKey: API_KEY,
          },
          (output) => expect(output.posts).toHaveLength(5),
        ],
        [
          {
            provider: "publisher",
            endpoint: "/api/v1/posts/{id}",
            input: { pathParams: { id: "post_01" } },
            upstreamKey: API_KEY,
          },
          (output) => expect(output.id).toBe("post_01"),
        ],
        [
          { provider: "publisher", endpoint: "/api/v1/connections", upstreamKey: API_KEY },
          (output) => expect(output.connections).toHaveLength(1),
        ],
        [
          {
            provider: "markets",
            endpoint: "/pm/event",
            input: { queryParams: { ref: markets.sampleRefs.slug } },
          },
          (output) => expect((output.markets as unknown[]).length).toBeGreaterThan(0),
        ],
      ];
      for (const [args, check] of runs) {
        const result = await callTool(client, "run", args);
        expect(result.isError, JSON.stringify(args)).toBe(false);
        expect(result.structured).toEqual(result.body);
        expect(result.body).toMatchObject({
          provider: args.provider,
          endpoint: args.endpoint,
          method: "GET",
          upstream: { status: 200 },
          cost: { amount: "0", currency: "USD" },
          balance: { amount: "0", currency: "USD" },
        });
        check(result.body.output);
      }
      await client.close();
      await gateway.close();
      await markets.close();
    });

    test("run takes the upstream key from the MCP request's X-Upstream-Key header, before the argument", async ({
      db,
    }) => {
      const gateway = await servedGateway(db);
      const caller = await openAccount(db);
      const client = await connectMcp(gateway.url, { ...bearer(caller.key), "x-upstream-key": SHOP_KEY });
      const args = { provider: "shop", endpoint: "/api/shops/agent-availability", method: "GET" };
      expect((await callTool(client, "run", args)).body.upstream.status).toBe(200);
      const both = await callTool(client, "run", { ...args, upstreamKey: "shk_wrong" });
      expect(both.body.upstream.status).toBe(200);
      expect(shop.seen.at(-1)?.headers["x-shop-key"]).toBe(SHOP_KEY);
      await client.close();
      await gateway.close();
    });
  });

  describe("errors", () => {
    test("a gateway failure is an isError result carrying the same body as over HTTP", async ({ db }) => {
      const silent = await silentUpstream();
      const gateway = await servedGateway(db, {
        urls: { markets: silent.url, shop: await closedPortUrl() },
        limits: { timeoutMs: 300 },
      });
      const caller = await openAccount(db);
      const client = await connectMcp(gateway.url, bearer(caller.key));
      const cases: [string, Record<string, unknown>, string][] = [
        ["inspect", { provider: "nobody", endpoint: "/x" }, "TOOL_NOT_FOUND"],
        ["run", { provider: "nobody", endpoint: "/x" }, "TOOL_NOT_FOUND"],
        [
          "run",
          { provider: "publisher", endpoint: "/api/v1/posts", input: { queryParams: { limit: 0 } } },
          "INVALID_INPUT",
        ],
        ["run", { provider: "publisher", endpoint: "/api/v1/connections" }, "UPSTREAM_KEY_REQUIRED"],
        [
          "run",
          { provider: "markets", endpoint: "/pm/event", input: { queryParams: { ref: "x" } } },
          "UPSTREAM_TIMEOUT",
        ],
        [
          "run",
          { provider: "shop", endpoint: "/api/shops/agent-availability", upstreamKey: SHOP_KEY },
          "UPSTREAM_UNAVAILABLE",
        ],
      ];
      for (const [tool, args, code] of cases) {
        const result = await callTool(client, tool, args);
        expect(result.isError, code).toBe(true);
        expect(result.body.error).toBe(code);
        expect(typeof result.body.message).toBe("string");
        expect(result.structured).toEqual(result.body);
      }
      const invalid = await callTool(client, "run", {
        provider: "publisher",
        endpoint: "/api/v1/posts",
        input: { queryParams: { limit: 0 } },
      });
      expect(invalid.body.issues[0].path).toBe("input.queryParams.limit");
      await client.close();
      await gateway.close();
      await silent.close();
    });

    test("arguments with a key the tool does not take are refused, as over HTTP: nothing runs or is recorded", async ({
      db,
    }) => {
      const gateway = await servedGateway(db);
      const caller = await openAccount(db);
      const client = await connectMcp(gateway.url, bearer(caller.key));
      const named = { provider: "shop", endpoint: "/api/shops/agent-availability", upstreamKey: SHOP_KEY };
      const calls = shop.seen.length;
      for (const [tool, args] of [
        ["run", { ...named, inputs: { queryParams: { city: "Paris" } } }],
        ["run", { ...named, input: {}, dryRun: true }],
        ["inspect", { provider: "shop", endpoint: "/api/shops/agent-availability", verbose: true }],
      ] as const) {
        const result = (await client.callTool({ name: tool, arguments: args })) as {
          content: { type: string; text: string }[];
          isError?: boolean;
        };
        expect(result.isError, JSON.stringify(args)).toBe(true);
        expect(result.content[0]?.text).toMatch(/unrecognized key/i);
        const overHttp = await postJson(gateway.app, `/v1/${tool}`, args, bearer(caller.key));
        expect(overHttp.status).toBe(400);
      }
      expect(shop.seen.length).toBe(calls);
      const runs = await db.query("SELECT id FROM gateway.runs WHERE account_id = $1", [caller.accountId]);
      expect(runs).toEqual([]);
      await client.close();
      await gateway.close();
    });

    test("a rate-limited run is an isError result with the seconds to wait", async ({ db }) => {
      const gateway = await servedGateway(db, { runsPerMinute: 1 });
      const caller = await openAccount(db);
      const client = await connectMcp(gateway.url, bearer(caller.key));
      const args = { provider: "shop", endpoint: "/api/shops/agent-availability", upstreamKey: SHOP_KEY };
      expect((await callTool(client, "run", args)).isError).toBe(false);
      const limited = await callTool(client, "run", args);
      expect(limited.isError).toBe(true);
      expect(limited.body).toMatchObject({ error: "RATE_LIMITED", retryAfterSeconds: 60 });
      await client.close();
      await gateway.close();
    });

    test("GET and DELETE are 405: the server keeps no sessions", async ({ db }) => {
      const gateway = await servedGateway(db);
      const caller = await openAccount(db);
      for (const method of ["GET", "DELETE"]) {
        const res = await fetch(`${gateway.url}/mcp`, { method, headers: bearer(caller.key) });
        expect(res.status).toBe(405);
        expect(res.headers.get("allow")).toBe("POST");
      }
      await gateway.close();
    });
  });

  describe("security", () => {
    test("answers 401 without a valid gateway key, and the official client cannot connect", async ({
      db,
    }) => {
      const gateway = await servedGateway(db);
      const caller = await openAccount(db);
      await gateway.deps.accounts.revokeKey(caller.keyId, new Date());
      for (const headers of [{}, bearer("gwk_wrong"), bearer(caller.key)]) {
        const res = await fetch(`${gateway.url}/mcp`, {
          method: "POST",
          headers: {
            ...headers,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        });
        expect(res.status).toBe(401);
        expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
        await expect(connectMcp(gateway.url, headers)).rejects.toThrow();
      }
      await gateway.close();
    });
  });
});

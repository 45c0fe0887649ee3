import { serveApp } from "@app/core";
import { captureLogs, test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect } from "vitest";
import {
  closedPortUrl,
  type FakeServer,
  fakePublisher,
  fakeShop,
  leakyFailingUpstream,
  oversizeUpstream,
  silentUpstream,
} from "./support/fake-upstreams.ts";
import { bearer, gatewayHarness, gatewayTablesAsText, openAccount, postJson } from "./support/harness.ts";
import { startRealMarkets } from "./support/markets.ts";
import { callTool, connectMcp } from "./support/mcp-client.ts";

/** A recognisable upstream key: it must never come back, be stored, or be logged. */
const UPSTREAM_KEY = "upk_CANARY_d41d8cd98f00b204e9800998ecf8427e";

const TOOLS = [
  { provider: "shop", endpoint: "/api/shops/agent-availability", input: { queryParams: { days: 2 } } },
  { provider: "publisher", endpoint: "/api/v1/posts", input: { queryParams: { status: "draft" } } },
  { provider: "publisher", endpoint: "/api/v1/posts/{id}", input: { pathParams: { id: "post_02" } } },
  { provider: "publisher", endpoint: "/api/v1/connections", input: {} },
  { provider: "markets", endpoint: "/pm/event", input: { queryParams: { ref: "no-such-event" } } },
].map((tool) => ({ ...tool, method: "GET" }));

const servers: FakeServer[] = [];
let shop: FakeServer;
let publisher: FakeServer;

beforeAll(async () => {
  [shop, publisher] = await Promise.all([fakeShop(UPSTREAM_KEY), fakePublisher(UPSTREAM_KEY)]);
  servers.push(shop, publisher);
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** Everything a caller received: status line, every header, every body. */
function transcript() {
  const seen: string[] = [];
  return {
    seen,
    async record(res: Response): Promise<Response> {
      const text = await res.clone().text();
      seen.push(
        `${res.status}\n${[...res.headers].map(([name, value]) => `${name}: ${value}`).join("\n")}\n${text}`,
      );
      return res;
    },
  };
}

describe("secrets", () => {
  test("the upstream key and the gateway key never reach a response, the database or the logs", async ({
    db,
  }) => {
    const { logger, lines } = captureLogs("debug");
    const markets = await startRealMarkets(db);
    const [leaky, silent, big] = await Promise.all([
      leakyFailingUpstream(),
      silentUpstream(),
      oversizeUpstream(8192, true),
    ]);
    servers.push(leaky, silent, big);
    const healthy = gatewayHarness(db, {
      logger,
      urls: { shop: shop.url, publisher: publisher.url, markets: markets.url },
    });
    const failing = gatewayHarness(db, {
      logger,
      limits: { timeoutMs: 300, maxResponseBytes: 1024 },
      urls: { shop: leaky.url, publisher: silent.url, markets: big.url },
    });
    const unreachable = gatewayHarness(db, {
      logger,
      urls: { shop: await closedPortUrl(), publisher: await closedPortUrl() },
    });
    const caller = await openAccount(db);
    const out = transcript();
    const statuses: number[] = [];

    for (const h of [healthy, failing, unreachable]) {
      for (const tool of TOOLS) {
        const viaHeader = await out.record(
          await postJson(h.app, "/v1/run", tool, { ...bearer(caller.key), "x-upstream-key": UPSTREAM_KEY }),
        );
        const viaBody = await out.record(
          await postJson(
            h.app,
            "/v1/run",
            { ...tool, upstreamKey: UPSTREAM_KEY },
            {
              ...bearer(caller.key),
              "idempotency-key": `${tool.endpoint}-${statuses.length}`,
            },
          ),
        );
        statuses.push(viaHeader.status, viaBody.status);
      }
    }
    const invalid = await out.record(
      await postJson(
        healthy.app,
        "/v1/run",
        { ...TOOLS[1], input: { queryParams: { limit: UPSTREAM_KEY } } },
        {
          ...bearer(caller.key),
          "x-upstream-key": UPSTREAM_KEY,
        },
      ),
    );
    expect(invalid.status).toBe(400);

    for (const h of [healthy, failing]) {
      const served = await serveApp(h.app as never, { host: "127.0.0.1", port: 0 });
      const fetchRecorded = async (url: string | URL | Request, init?: RequestInit) =>
        out.record(await fetch(url, init));
      for (const headers of [{ "x-upstream-key": UPSTREAM_KEY }, {}] as Record<string, string>[]) {
        const client = await connectMcp(served.url, { ...bearer(caller.key), ...headers }, fetchRecorded);
        for (const tool of TOOLS) {
          const result = await callTool(client, "run", { ...tool, upstreamKey: UPSTREAM_KEY });
          statuses.push(result.isError ? 0 : 1);
        }
        await client.close();
      }
      await served.close();
    }

    // The runs did happen, with the key, and the failures were the expected ones.
    expect(shop.seen.some((request) => request.headers["x-shop-key"] === UPSTREAM_KEY)).toBe(true);
    expect(leaky.seen.length).toBeGreaterThan(0);
    expect(statuses).toContain(502);
    expect(statuses).toContain(504);
    expect(out.seen.some((text) => text.includes("[redacted]"))).toBe(true);

    for (const h of [healthy, failing, unreachable]) await h.deps.usage.flush();
    const database = await gatewayTablesAsText(db);
    expect(database).toContain(caller.accountId);
    const logs = lines.join("\n");
    expect(logs).toContain("upstream call failed");
    for (const secret of [UPSTREAM_KEY, caller.key]) {
      expect(database).not.toContain(secret);
      expect(logs).not.toContain(secret);
      for (const text of out.seen) expect(text).not.toContain(secret);
    }
    await Promise.all([healthy.close(), failing.close(), unreachable.close(), markets.close()]);
  });
});

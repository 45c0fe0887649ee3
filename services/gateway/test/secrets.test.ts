import { serveApp } from "@app/core";
import { captureLogs, json, test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect } from "vitest";
import {
  closedPortUrl,
  type FakeServer,
  fakePublisher,
  fakeShop,
  leakyFailingUpstream,
  oversizeUpstream,
  silentUpstream,
  startServer,
} from "./support/fake-upstreams.ts";
import { bearer, gatewayHarness, gatewayTablesAsText, openAccount, postJson } from "./support/harness.ts";
import { startRealMarkets } from "./support/markets.ts";
import { callTool, connectMcp } from "./support/mcp-client.ts";
import { serveGateway } from "./support/served.ts";

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

  test("the history routes (runs, one run, usage, ledger) never show the upstream key, even from an upstream that echoes it", async ({
    db,
  }) => {
    const { logger, lines } = captureLogs("debug");
    // Echoes the caller's key back: in its JSON (as sent, percent-encoded, \u-escaped) and its Retry-After.
    const echoing = await startServer((req, res, url) => {
      const key = String(req.headers["x-shop-key"] ?? "");
      const escaped = [...key]
        .map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)
        .join("");
      if (url.searchParams.get("days") === "3") {
        res.writeHead(429, { "content-type": "text/plain", "retry-after": `kkk/${key}` });
        return res.end(`slow down, ${key}`);
      }
      res.writeHead(200, { "content-type": "application/json", "retry-after": key });
      res.end(
        `{"echo":"${key}","encoded":"${encodeURIComponent(key)}","escaped":"${escaped}","${escaped}":1}`,
      );
    });
    const leaky = await leakyFailingUpstream();
    const silent = await silentUpstream();
    servers.push(echoing, leaky, silent);
    const gateway = await serveGateway(db, { logger, urls: { shop: echoing.url, publisher: publisher.url } });
    const failing = gatewayHarness(db, {
      logger,
      limits: { timeoutMs: 300 },
      urls: { shop: leaky.url, publisher: silent.url },
    });
    const keeping = await openAccount(db);
    const plain = await openAccount(db);
    await gateway.deps.accounts.setKeepRunOutput(keeping.accountId, true);
    const shopRun = (days: number) => ({
      provider: "shop",
      endpoint: "/api/shops/agent-availability",
      method: "GET",
      input: { queryParams: { days } },
    });

    for (const caller of [keeping, plain]) {
      for (const [h, tool] of [
        [gateway, shopRun(2)],
        [gateway, shopRun(3)],
        [gateway, TOOLS[1]],
        [gateway, TOOLS[2]],
        [failing, shopRun(2)],
        [failing, TOOLS[3]],
      ] as const) {
        await postJson(h.app, "/v1/run", tool, { ...bearer(caller.key), "x-upstream-key": UPSTREAM_KEY });
        await postJson(
          h.app,
          "/v1/run",
          { ...tool, upstreamKey: UPSTREAM_KEY },
          { ...bearer(caller.key), "idempotency-key": `history-${tool?.endpoint}-${Math.random()}` },
        );
      }
      const client = await connectMcp(gateway.url, { ...bearer(caller.key), "x-upstream-key": UPSTREAM_KEY });
      await callTool(client, "run", shopRun(2));
      await client.close();
    }
    await gateway.deps.usage.flush();
    await failing.deps.usage.flush();

    // Every answer of the history routes: its status line and headers, and its body.
    const answers: string[] = [];
    const get = async (caller: { key: string }, path: string) => {
      const res = await gateway.app.request(path, { headers: bearer(caller.key) });
      answers.push(
        `${res.status}\n${[...res.headers].map(([name, value]) => `${name}: ${value}`).join("\n")}`,
      );
      answers.push(await res.clone().text());
      return res;
    };
    const detailTexts: string[] = [];
    for (const caller of [keeping, plain]) {
      for (const query of ["", "&provider=shop", "&status=upstream_error", "&status=succeeded"]) {
        let cursor: string | null = null;
        do {
          const page = await json(
            await get(caller, `/v1/runs?limit=3${query}${cursor ? `&cursor=${cursor}` : ""}`),
          );
          for (const listed of page.runs) {
            detailTexts.push(await (await get(caller, `/v1/runs/${listed.id}`)).text());
          }
          cursor = page.nextCursor;
        } while (cursor);
      }
      await get(caller, "/v1/usage");
      let cursor: string | null = null;
      do {
        const page = await json(await get(caller, `/v1/ledger?limit=4${cursor ? `&cursor=${cursor}` : ""}`));
        cursor = page.nextCursor;
      } while (cursor);
    }

    const kept = await db.query<{ output: string }>(
      "SELECT output FROM gateway.runs WHERE output IS NOT NULL AND account_id = $1",
      [keeping.accountId],
    );
    const database = await gatewayTablesAsText(db);
    const logs = lines.join("\n");
    for (const secret of [UPSTREAM_KEY, keeping.key, plain.key]) {
      for (const text of [database, logs, ...answers, ...kept.map((row) => row.output)]) {
        expect(holdsSecret(text, secret)).toBe(false);
      }
    }

    // The runs happened with the key, the echo was kept (scrubbed) for the account that keeps outputs.
    expect(echoing.seen.some((request) => request.headers["x-shop-key"] === UPSTREAM_KEY)).toBe(true);
    expect(leaky.seen.length).toBeGreaterThan(0);
    expect(detailTexts.length).toBeGreaterThan(20);
    expect(detailTexts.some((text) => text.includes('"echo":"[redacted]"'))).toBe(true);
    expect(detailTexts.some((text) => text.includes('"output":"slow down, [redacted]"'))).toBe(true);
    expect(kept.length).toBeGreaterThan(0);
    const [plainKept] = await db.query<{ n: number }>(
      "SELECT count(output)::int AS n FROM gateway.runs WHERE account_id = $1",
      [plain.accountId],
    );
    expect(plainKept?.n).toBe(0);
    await Promise.all([gateway.close(), failing.close()]);
  });
});

/**
 * Whether `text` holds `secret`: as it stands, percent-encoded, or in any string of it read as
 * JSON (so a `\uXXXX` spelling is found too), JSON text nested in a string included.
 */
function holdsSecret(text: string, secret: string): boolean {
  if (text.includes(secret) || text.includes(encodeURIComponent(secret))) return true;
  const pending: unknown[] = [];
  try {
    pending.push(JSON.parse(text));
  } catch {
    return false;
  }
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === "string") {
      if (value.includes(secret)) return true;
      if (/^\s*[[{]/.test(value)) {
        try {
          pending.push(JSON.parse(value));
        } catch {
          // Text, not JSON.
        }
      }
    } else if (value !== null && typeof value === "object") {
      for (const [name, item] of Object.entries(value)) pending.push(name, item);
    }
  }
  return false;
}

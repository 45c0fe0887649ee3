import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import type { McpCallContext } from "../../src/mcp/server.ts";
import { answerWithSdk, directToolsCall } from "../../src/routes/mcp.ts";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { gatewayHarness, openAccount } from "../support/harness.ts";

const SHOP_KEY = "shk_direct_path_key_0123456789";

const call = (name: string, args?: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: { name, ...(args === undefined ? {} : { arguments: args }), ...extra },
});

/** Run ids and durations differ between two runs; everything else must not. */
function normalised(text: string): unknown {
  return JSON.parse(
    text.replace(/run_[A-Za-z0-9_-]{20}/g, "run_X").replace(/(\\?"durationMs\\?":)\d+/g, "$10"),
  );
}

describe("MCP tools/call answered directly", () => {
  test("answers what the SDK's stateless server answers, and leaves everything else to it", async ({
    db,
  }) => {
    const upstream = new FakeUpstreamClient((request) =>
      request.url.pathname === "/pm/event"
        ? jsonAnswer(200, { title: "Fed", "1": "digit key", nested: { list: [1, 2.5, "é", null] } })
        : jsonAnswer(401, { error: `bad key ${SHOP_KEY}` }),
    );
    const h = gatewayHarness(db, { upstream });
    const caller = await openAccount(db);
    const context: McpCallContext = {
      caller: { accountId: caller.accountId, keyId: caller.keyId },
      headerUpstreamKey: undefined,
    };
    const sdk = async (message: unknown) => {
      const request = new Request("http://gateway.test/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(message),
      });
      const res = await answerWithSdk(h.deps, context, request);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      return res.text();
    };
    const answered = [
      call("inspect", { provider: "markets", endpoint: "/pm/event" }),
      call("inspect", { provider: "nobody", endpoint: "/x" }),
      call("inspect", { provider: "markets" }),
      call("inspect", { provider: "nobody" }),
      call("run", { provider: "markets", endpoint: "/pm/event", input: { queryParams: { ref: "fed" } } }),
      call("run", {
        provider: "markets",
        endpoint: "/pm/event",
        method: "get",
        input: { queryParams: { ref: "x" } },
      }),
      call("run", { provider: "shop", endpoint: "/api/shops/agent-availability", upstreamKey: SHOP_KEY }),
      call("run", { provider: "shop", endpoint: "/api/shops/agent-availability" }),
      call("run", { provider: "publisher", endpoint: "/api/v1/posts", input: { queryParams: { limit: 0 } } }),
      { ...call("run", { provider: "nobody", endpoint: "/x" }), id: "string-id" },
      call("run", {
        provider: "markets",
        endpoint: "/pm/event",
        input: { queryParams: { ref: "fed" } },
        idempotencyKey: "direct-and-sdk",
      }),
    ];
    for (const message of answered) {
      const direct = await directToolsCall(h.deps, context, message);
      expect(direct, JSON.stringify(message)).toBeDefined();
      expect(normalised(direct as string), JSON.stringify(message)).toEqual(normalised(await sdk(message)));
    }
    const leftToSdk = [
      call("run", { provider: 1, endpoint: "/pm/event" }),
      call("run", { endpoint: "/pm/event" }),
      call("run", { provider: "markets", endpoint: "/pm/event", input: { other: {} } }),
      call("run", {
        provider: "markets",
        endpoint: "/pm/event",
        input: { queryParams: { ref: "x" } },
        extra: 1,
      }),
      call("unknown", {}),
      call("run", { provider: "markets", endpoint: "/pm/event", idempotencyKey: "not a key" }),
      call("run", { provider: "markets", endpoint: "/pm/event" }, { _meta: { progressToken: 1 } }),
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      [call("inspect", { provider: "markets", endpoint: "/pm/event" })],
      { ...call("inspect", { provider: "markets", endpoint: "/pm/event" }), id: 1.5 },
    ];
    for (const message of leftToSdk) {
      expect(await directToolsCall(h.deps, context, message), JSON.stringify(message)).toBeUndefined();
    }
    await h.close();
  });
});

import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeUpstreamClient } from "../../src/upstream/client.fake.ts";
import { bearer, gatewayHarness, openAccount } from "../support/harness.ts";
import { MCP_POST_HEADERS } from "../support/served.ts";

const call = (id: number, params: unknown) => ({ jsonrpc: "2.0", id, method: "tools/call", params });

/**
 * Attack: `tools/call` with `arguments` that are not an object (an array, a string, a number,
 * null) was answered `-32603` (Internal error) with the SDK's raw validation report as message.
 */
describe("a tools/call on /mcp whose arguments are not an object", () => {
  test("is Invalid params (-32602) with a message that says so, and nothing runs", async ({ db }) => {
    const upstream = new FakeUpstreamClient();
    const h = gatewayHarness(db, { upstream });
    const caller = await openAccount(db);
    const post = (message: unknown) =>
      h.app.request("/mcp", {
        method: "POST",
        headers: { ...MCP_POST_HEADERS, ...bearer(caller.key) },
        body: JSON.stringify(message),
      });
    const named = { provider: "markets", endpoint: "/pm/event" };
    for (const [index, args] of [[named], "run", 5, null].entries()) {
      for (const params of [
        { name: "run", arguments: args },
        { name: "inspect", arguments: args, _meta: { progressToken: 1 } },
      ]) {
        const res = await post(call(index, params));
        expect(res.status).toBe(200);
        const answer = (await res.json()) as { id: number; error: { code: number; message: string } };
        expect(answer.id, JSON.stringify(params)).toBe(index);
        expect(answer.error.code, JSON.stringify(answer)).toBe(-32602);
        expect(answer.error.message).toBe(
          'Invalid params: "arguments" must be an object of the tool\'s arguments by name.',
        );
      }
    }
    const batch = await post([call(1, { name: "run", arguments: [] }), call(2, { name: "inspect" })]);
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32602 } });
    const nameless = (await (await post(call(9, { arguments: {} }))).json()) as {
      error: { code: number; message: string };
    };
    expect(nameless.error.code).toBe(-32602);
    expect(nameless.error.message).toMatch(/^Invalid params: name: /);
    expect(nameless.error.message).not.toContain("\n");
    expect(upstream.requests).toHaveLength(0);
    await h.close();
  });
});

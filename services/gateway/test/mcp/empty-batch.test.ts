import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { bearer, gatewayHarness, openAccount } from "../support/harness.ts";
import { MCP_POST_HEADERS } from "../support/served.ts";

/** Attack: a JSON-RPC batch `[]` on /mcp was answered 202, as if it held only notifications. */
describe("an empty JSON-RPC batch on /mcp", () => {
  test("is a JSON-RPC Invalid Request error (-32600)", async ({ db }) => {
    const h = gatewayHarness(db);
    const caller = await openAccount(db);
    const res = await h.app.request("/mcp", {
      method: "POST",
      headers: { ...MCP_POST_HEADERS, ...bearer(caller.key) },
      body: "[]",
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) },
    });
    await h.close();
  });
});

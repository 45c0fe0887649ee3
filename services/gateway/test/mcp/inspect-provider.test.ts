import { json, test } from "@app/testkit";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect } from "vitest";
import { AccountStore } from "../../src/store/accounts.ts";
import { KeyPolicyStore } from "../../src/store/key-policies.ts";
import { FakeUpstreamClient } from "../../src/upstream/client.fake.ts";
import { bearer, openAccount } from "../support/harness.ts";
import { connectMcp } from "../support/mcp-client.ts";
import { serveGateway } from "../support/served.ts";

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: unknown;
  isError?: boolean;
};

/** `inspect` called the way the official client calls: plain (the direct path), or with `_meta` (the SDK's). */
const WAYS = {
  plain: (client: Client, args: Record<string, unknown>) =>
    client.callTool({ name: "inspect", arguments: args }),
  meta: (client: Client, args: Record<string, unknown>) =>
    client.callTool({ name: "inspect", arguments: args, _meta: { trace: "t-1" } }),
};

describe("MCP inspect with a provider and no endpoint", () => {
  test("lists the provider's tools, as GET /v1/providers/{id} answers, on both paths", async ({ db }) => {
    const gateway = await serveGateway(db, { upstream: new FakeUpstreamClient() });
    const caller = await openAccount(db);
    const client = await connectMcp(gateway.url, bearer(caller.key));
    for (const provider of ["shop", "publisher", "markets"]) {
      const overHttp = await gateway.app.request(`/v1/providers/${provider}`, {
        headers: bearer(caller.key),
      });
      expect(overHttp.status).toBe(200);
      const listed = await json(overHttp);
      for (const [way, call] of Object.entries(WAYS)) {
        const result = (await call(client, { provider })) as ToolResult;
        expect(result.isError, `${provider} ${way}`).toBeUndefined();
        expect(JSON.parse(result.content[0]?.text ?? "null"), `${provider} ${way}`).toEqual(listed);
        expect(result.structuredContent).toEqual(listed);
      }
    }
    const publisher = (await WAYS.plain(client, { provider: "publisher" })) as ToolResult;
    const tools = JSON.parse(publisher.content[0]?.text ?? "null").tools as { endpoint: string }[];
    expect(tools.map((tool) => tool.endpoint)).toEqual([
      "/api/v1/posts",
      "/api/v1/posts/{id}",
      "/api/v1/connections",
    ]);
    await client.close();
    await gateway.close();
  });

  test("of an unknown provider is an isError result with the body of GET /v1/providers/{id}'s 404", async ({
    db,
  }) => {
    const gateway = await serveGateway(db, { upstream: new FakeUpstreamClient() });
    const caller = await openAccount(db);
    const client = await connectMcp(gateway.url, bearer(caller.key));
    const overHttp = await gateway.app.request("/v1/providers/nobody", { headers: bearer(caller.key) });
    expect(overHttp.status).toBe(404);
    const refused = await json(overHttp);
    expect(refused).toMatchObject({
      error: "PROVIDER_NOT_FOUND",
      providers: ["shop", "publisher", "markets"],
    });
    for (const [way, call] of Object.entries(WAYS)) {
      const result = (await call(client, { provider: "nobody" })) as ToolResult;
      expect(result.isError, way).toBe(true);
      expect(JSON.parse(result.content[0]?.text ?? "null"), way).toEqual(refused);
      expect(result.structuredContent).toEqual(refused);
    }
    await client.close();
    await gateway.close();
  });

  test("shows only what the key's allowlist lets it use, as GET /v1/providers/{id} does", async ({ db }) => {
    const gateway = await serveGateway(db, { upstream: new FakeUpstreamClient() });
    const account = await openAccount(db);
    const limited = await new AccountStore(db).issueKey(account.accountId, "limited");
    await new KeyPolicyStore(db).change(limited.id, { allow: ["publisher /api/v1/posts GET"] });
    const client = await connectMcp(gateway.url, bearer(limited.key));
    for (const provider of ["publisher", "shop"]) {
      const overHttp = await gateway.app.request(`/v1/providers/${provider}`, {
        headers: bearer(limited.key),
      });
      const expected = await json(overHttp);
      const result = (await WAYS.plain(client, { provider })) as ToolResult;
      expect(result.isError === true, provider).toBe(overHttp.status === 404);
      expect(JSON.parse(result.content[0]?.text ?? "null"), provider).toEqual(expected);
    }
    const publisher = (await WAYS.meta(client, { provider: "publisher" })) as ToolResult;
    const tools = JSON.parse(publisher.content[0]?.text ?? "null").tools as { endpoint: string }[];
    expect(tools.map((tool) => tool.endpoint)).toEqual(["/api/v1/posts"]);
    const shop = (await WAYS.meta(client, { provider: "shop" })) as ToolResult;
    expect(JSON.parse(shop.content[0]?.text ?? "null")).toMatchObject({
      error: "PROVIDER_NOT_FOUND",
      providers: ["publisher"],
    });
    await client.close();
    await gateway.close();
  });

  test("is what tools/list tells: exactly inspect and run, inspect needing only a provider, run taking an idempotencyKey", async ({
    db,
  }) => {
    const gateway = await serveGateway(db, { upstream: new FakeUpstreamClient() });
    const caller = await openAccount(db);
    const client = await connectMcp(gateway.url, bearer(caller.key));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["inspect", "run"]);
    const inspect = tools.find((tool) => tool.name === "inspect");
    expect(inspect?.inputSchema.required).toEqual(["provider"]);
    expect(Object.keys(inspect?.inputSchema.properties ?? {}).sort()).toEqual([
      "endpoint",
      "method",
      "provider",
    ]);
    expect(inspect?.description).toMatch(/without endpoint.*list.*provider's tools/i);
    const run = tools.find((tool) => tool.name === "run");
    expect(run?.inputSchema.required).toEqual(["provider", "endpoint"]);
    expect(run?.inputSchema.properties?.idempotencyKey).toMatchObject({
      type: "string",
      description: expect.stringContaining("Idempotency-Key"),
    });
    await client.close();
    await gateway.close();
  });
});

import type { ServiceApp } from "@app/core";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeUpstreamClient } from "../../src/upstream/client.fake.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";
import { callTool, connectMcp } from "../support/mcp-client.ts";
import { serveGateway } from "../support/served.ts";
import { keyWithPolicy, LIST_POSTS, marketsRun, SHOP_TOOL } from "./policy-support.ts";

const SHOP_KEY = { "x-upstream-key": "shk_allowlist_shop_key_0123" };

/** A tool no provider has, named as a limited key would name the hidden shop tool. */
const NEVER_REGISTERED = { provider: "florist", endpoint: "/api/shops/agent-availability", method: "GET" };

const MARKETS_ONLY = [{ provider: "markets", endpoint: "/pm/event", method: "GET" }];

const get = (app: ServiceApp, path: string, key: string) =>
  Promise.resolve(app.request(path, { headers: bearer(key) }));

const inspectQuery = (tool: typeof SHOP_TOOL) =>
  `/v1/inspect?${new URLSearchParams({ provider: tool.provider, endpoint: tool.endpoint, method: tool.method })}`;

describe("a key limited to markets", () => {
  test("its catalog shows markets alone: the shop is neither listed, found by search, nor found by id", async ({
    db,
  }) => {
    const h = gatewayHarness(db, { upstream: new FakeUpstreamClient() });
    const owner = await openAccount(db);
    const limited = await keyWithPolicy(db, owner, { allow: ["markets"] });

    const listed = await json(await get(h.app, "/v1/providers", limited.key));
    expect(listed.providers.map((provider: { id: string }) => provider.id)).toEqual(["markets"]);
    expect(await json(await get(h.app, "/v1/providers?q=shop", limited.key))).toEqual({ providers: [] });
    expect(await json(await get(h.app, "/v1/providers?q=partysize", limited.key))).toEqual({ providers: [] });

    const shop = await get(h.app, "/v1/providers/shop", limited.key);
    const florist = await get(h.app, "/v1/providers/florist", limited.key);
    expect(shop.status).toBe(404);
    expect(await json(shop)).toEqual(await json(florist));
    expect(await json(await get(h.app, "/v1/providers/shop", owner.key))).toMatchObject({ id: "shop" });
    // The account's unlimited key still sees every provider.
    expect((await json(await get(h.app, "/v1/providers", owner.key))).providers).toHaveLength(3);
    await h.close();
  });

  test("inspect answers the shop tool exactly as a tool never registered, listing markets' tool only", async ({
    db,
  }) => {
    const h = gatewayHarness(db, { upstream: new FakeUpstreamClient() });
    const owner = await openAccount(db);
    const limited = await keyWithPolicy(db, owner, { allow: ["markets"] });

    const posted = await postJson(h.app, "/v1/inspect", SHOP_TOOL, bearer(limited.key));
    expect(posted.status).toBe(404);
    const body = await json(posted);
    expect(body).toMatchObject({ error: "TOOL_NOT_FOUND", tools: MARKETS_ONLY });
    expect(body).toEqual(
      await json(await postJson(h.app, "/v1/inspect", NEVER_REGISTERED, bearer(limited.key))),
    );
    const byQuery = await get(h.app, inspectQuery(SHOP_TOOL), limited.key);
    expect(byQuery.status).toBe(404);
    expect(await json(byQuery)).toEqual(body);
    expect((await postJson(h.app, "/v1/inspect", SHOP_TOOL, bearer(owner.key))).status).toBe(200);
    await h.close();
  });

  test("a run of the shop tool is 404 TOOL_NOT_FOUND as for an unknown tool, with or without an Idempotency-Key, and nothing is sent", async ({
    db,
  }) => {
    const upstream = new FakeUpstreamClient();
    const h = gatewayHarness(db, { upstream });
    const owner = await openAccount(db);
    const limited = await keyWithPolicy(db, owner, { allow: ["markets"] });
    const shopRun = { ...SHOP_TOOL, input: {} };

    const refused = await postJson(h.app, "/v1/run", shopRun, { ...bearer(limited.key), ...SHOP_KEY });
    expect(refused.status).toBe(404);
    const body = await json(refused);
    const unknown = await postJson(h.app, "/v1/run", { ...NEVER_REGISTERED, input: {} }, bearer(limited.key));
    expect(body).toEqual(await json(unknown));
    expect(body.tools).toEqual(MARKETS_ONLY);

    // The account's unlimited key ran it first under an Idempotency-Key: the limited key cannot replay it.
    const keyed = { ...SHOP_KEY, "idempotency-key": "shop-once" };
    expect((await postJson(h.app, "/v1/run", shopRun, { ...bearer(owner.key), ...keyed })).status).toBe(200);
    const replay = await postJson(h.app, "/v1/run", shopRun, { ...bearer(limited.key), ...keyed });
    expect(replay.status).toBe(404);
    expect(await json(replay)).toEqual(body);
    expect(upstream.requests).toHaveLength(1);

    expect((await postJson(h.app, "/v1/run", marketsRun(), bearer(limited.key))).status).toBe(200);
    await h.close();
  });

  test("over MCP (the official client) its tools list no shop, and inspect and run of the shop tool answer as for an unknown tool", async ({
    db,
  }) => {
    const upstream = new FakeUpstreamClient();
    const gateway = await serveGateway(db, { upstream });
    const owner = await openAccount(db);
    const limited = await keyWithPolicy(db, owner, { allow: ["markets"] });
    const client = await connectMcp(gateway.url, { ...bearer(limited.key), ...SHOP_KEY });

    const { tools } = await client.listTools();
    const listing = JSON.stringify(tools);
    expect(listing).toContain("/pm/event");
    expect(listing).not.toMatch(/shop|publisher|connections/i);

    const unknown = await callTool(client, "inspect", NEVER_REGISTERED);
    const inspected = await callTool(client, "inspect", SHOP_TOOL);
    expect(inspected.isError).toBe(true);
    expect(inspected.body).toEqual(unknown.body);
    expect(inspected.body).toMatchObject({ error: "TOOL_NOT_FOUND", tools: MARKETS_ONLY });
    expect(inspected.body).toEqual(
      await json(await postJson(gateway.app, "/v1/inspect", SHOP_TOOL, bearer(limited.key))),
    );

    const ran = await callTool(client, "run", { ...SHOP_TOOL, input: {} });
    expect(ran.isError).toBe(true);
    expect(ran.body).toEqual((await callTool(client, "run", { ...NEVER_REGISTERED, input: {} })).body);
    expect(upstream.requests).toHaveLength(0);

    const markets = await callTool(client, "run", marketsRun());
    expect(markets.isError).toBe(false);
    expect(upstream.requests).toHaveLength(1);
    await client.close();

    // The unlimited key's MCP tools list every tool.
    const full = await connectMcp(gateway.url, bearer(owner.key));
    expect(JSON.stringify((await full.listTools()).tools)).toContain("/api/shops/agent-availability");
    await full.close();
    await gateway.close();
  });
});

describe("a key limited to one tool of a provider", () => {
  test("sees that provider with that tool alone; its other tools are unknown to it", async ({ db }) => {
    const upstream = new FakeUpstreamClient();
    const h = gatewayHarness(db, { upstream });
    const owner = await openAccount(db);
    const limited = await keyWithPolicy(db, owner, { allow: [LIST_POSTS] });

    const provider = await json(await get(h.app, "/v1/providers/publisher", limited.key));
    expect(provider.tools.map((tool: { endpoint: string }) => tool.endpoint)).toEqual(["/api/v1/posts"]);
    const getPost = { provider: "publisher", endpoint: "/api/v1/posts/{id}", method: "GET" };
    const refused = await postJson(h.app, "/v1/inspect", getPost, bearer(limited.key));
    expect(refused.status).toBe(404);
    expect((await json(refused)).tools).toEqual([
      { provider: "publisher", endpoint: "/api/v1/posts", method: "GET" },
    ]);
    const run = await postJson(
      h.app,
      "/v1/run",
      { ...getPost, input: { pathParams: { id: "post_1" } } },
      { ...bearer(limited.key), "x-upstream-key": "pub_key_0123456789" },
    );
    expect(run.status).toBe(404);
    expect(upstream.requests).toHaveLength(0);
    await h.close();
  });
});

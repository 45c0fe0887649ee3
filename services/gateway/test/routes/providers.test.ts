import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { PROVIDERS } from "../../src/registry/providers.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";
import { PRICED_PROVIDER } from "../support/priced.ts";

type App = ReturnType<typeof gatewayHarness>["app"];
type CatalogBody = { providers: { id: string; tools: { endpoint: string }[] }[] };

const providers = (app: App, key: string, query = "") =>
  app.request(`/v1/providers${query}`, { headers: bearer(key) });

/** Provider id → its tools' endpoints, as a list answered them. */
const endpointsOf = (body: CatalogBody) =>
  Object.fromEntries(body.providers.map((provider) => [provider.id, provider.tools.map((t) => t.endpoint)]));

describe("GET /v1/providers and GET /v1/providers/{id}", () => {
  describe("success", () => {
    test("lists every provider and every tool, in declaration order, with price and upstream key", async ({
      db,
    }) => {
      const { app } = gatewayHarness(db);
      const caller = await openAccount(db);
      const res = await providers(app, caller.key);
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(endpointsOf(body)).toEqual(
        Object.fromEntries(PROVIDERS.map((p) => [p.id, p.tools.map((tool) => tool.endpoint)])),
      );
      expect(body.providers.map((p: { id: string }) => p.id)).toEqual(["shop", "publisher", "markets"]);
      const [shop, publisher, markets] = body.providers;
      expect(shop).toMatchObject({ name: "Shop", upstreamKeyHeader: "x-shop-key" });
      expect(publisher.upstreamKeyHeader).toBe("x-api-key");
      expect(markets.upstreamKeyHeader).toBeNull();
      expect(markets.tools[0]).toMatchObject({
        name: "Prediction-market event",
        provider: "markets",
        endpoint: "/pm/event",
        method: "GET",
        price: { amount: "0", currency: "USD" },
        upstreamKey: "none",
      });
      expect(publisher.tools[1].input.pathParams.required).toEqual(["id"]);
    });

    test("describes each tool exactly as /v1/inspect does, schemas included", async ({ db }) => {
      const { app } = gatewayHarness(db, { extraProviders: [PRICED_PROVIDER] });
      const caller = await openAccount(db);
      const body = await json(await providers(app, caller.key));
      const tools = body.providers.flatMap((p: { tools: Record<string, unknown>[] }) => p.tools);
      expect(tools).toHaveLength(6);
      for (const { name, ...tool } of tools) {
        const inspected = await json(
          await postJson(
            app,
            "/v1/inspect",
            { provider: tool.provider, endpoint: tool.endpoint, method: tool.method },
            bearer(caller.key),
          ),
        );
        expect(tool).toEqual(inspected);
        expect(typeof name).toBe("string");
      }
      const priced = body.providers.find((p: { id: string }) => p.id === "priced");
      expect(priced.tools[0].price).toEqual({ amount: "0.25", currency: "USD" });
    });

    test("searches tools by text, ignoring case, leaving out providers with no matching tool", async ({
      db,
    }) => {
      const { app } = gatewayHarness(db);
      const caller = await openAccount(db);
      const search = async (q: string) =>
        endpointsOf(await json(await providers(app, caller.key, `?${new URLSearchParams({ q })}`)));
      // The endpoint.
      expect(await search("POSTS")).toEqual({ publisher: ["/api/v1/posts", "/api/v1/posts/{id}"] });
      // A parameter name.
      expect(await search("partysize")).toEqual({ shop: ["/api/shops/agent-availability"] });
      // The provider's name, then its id.
      expect(await search("prediction")).toEqual({ markets: ["/pm/event"] });
      expect(await search("publisher")).toEqual({
        publisher: ["/api/v1/posts", "/api/v1/posts/{id}", "/api/v1/connections"],
      });
      // The description; every word must match, wherever it is.
      expect(await search("connected accounts")).toEqual({ publisher: ["/api/v1/connections"] });
      expect(await search("  markets   REF ")).toEqual({ markets: ["/pm/event"] });
    });

    test("answers an empty list when no tool matches", async ({ db }) => {
      const { app } = gatewayHarness(db);
      const caller = await openAccount(db);
      const res = await providers(app, caller.key, "?q=weather");
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ providers: [] });
      expect(await json(await providers(app, caller.key, "?q=posts%20bitcoin"))).toEqual({ providers: [] });
    });

    test("answers one provider with all its tools, as the list shows it", async ({ db }) => {
      const { app } = gatewayHarness(db);
      const caller = await openAccount(db);
      const res = await providers(app, caller.key, "/publisher");
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body.id).toBe("publisher");
      expect(body.tools.map((tool: { name: string }) => tool.name)).toEqual([
        "List posts",
        "Get post",
        "List connections",
      ]);
      const listed = await json(await providers(app, caller.key));
      expect(body).toEqual(listed.providers[1]);
    });
  });

  describe("errors", () => {
    test("answers 404 PROVIDER_NOT_FOUND listing the known ids for an unknown provider", async ({ db }) => {
      const { app } = gatewayHarness(db);
      const caller = await openAccount(db);
      const res = await providers(app, caller.key, "/weather");
      expect(res.status).toBe(404);
      const body = await json(res);
      expect(body).toMatchObject({
        error: "PROVIDER_NOT_FOUND",
        providers: ["shop", "publisher", "markets"],
      });
      expect(body.message).toEqual(expect.any(String));
    });

    test("answers 400 INVALID_INPUT naming a query parameter the route does not take", async ({ db }) => {
      const { app } = gatewayHarness(db);
      const caller = await openAccount(db);
      const refused = { "?query=posts": "query", "?q=posts&limit=1": "limit", "/markets?q=ref": "q" };
      for (const [path, name] of Object.entries(refused)) {
        const res = await providers(app, caller.key, path);
        expect(res.status, path).toBe(400);
        const body = await json(res);
        expect(body.error).toBe("INVALID_INPUT");
        expect(body.issues).toEqual([{ path: name, message: "is not a parameter this route takes" }]);
      }
    });

    test("answers 400 INVALID_INPUT for a q that is blank, too long or repeated", async ({ db }) => {
      const { app } = gatewayHarness(db);
      const caller = await openAccount(db);
      expect((await providers(app, caller.key, `?q=${"a".repeat(200)}`)).status).toBe(200);
      for (const query of ["?q=", "?q=%20%20", `?q=${"a".repeat(201)}`, "?q=posts&q=shop"]) {
        const res = await providers(app, caller.key, query);
        expect(res.status, query).toBe(400);
        const body = await json(res);
        expect(body.error).toBe("INVALID_INPUT");
        expect(body.issues[0].path).toBe("q");
      }
    });

    test("answers 400 INVALID_INPUT for a provider id over 64 characters", async ({ db }) => {
      const { app } = gatewayHarness(db);
      const caller = await openAccount(db);
      const res = await providers(app, caller.key, `/${"p".repeat(65)}`);
      expect(res.status).toBe(400);
      expect((await json(res)).issues[0].path).toBe("id");
    });
  });

  describe("security", () => {
    test("answers 401 with the Bearer challenge without a valid gateway key, whatever the query", async ({
      db,
    }) => {
      const { app } = gatewayHarness(db);
      for (const path of [
        "/v1/providers",
        "/v1/providers?q=posts",
        "/v1/providers?bad=1",
        "/v1/providers/shop",
      ]) {
        for (const headers of [{}, bearer("gwk_wrong")]) {
          const res = await app.request(path, { headers });
          expect(res.status, path).toBe(401);
          expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
          expect((await json(res)).error).toBe("UNAUTHORIZED");
        }
      }
    });

    test("answers 401 for a revoked key", async ({ db }) => {
      const { app, deps } = gatewayHarness(db);
      const caller = await openAccount(db);
      expect((await providers(app, caller.key)).status).toBe(200);
      await deps.accounts.revokeKey(caller.keyId, new Date());
      expect((await providers(app, caller.key)).status).toBe(401);
    });
  });

  test("both operations are in /openapi.json, under the gateway key", async ({ db }) => {
    const { app } = gatewayHarness(db);
    const document = await json(await app.request("/openapi.json"));
    const list = document.paths["/v1/providers"].get;
    const get = document.paths["/v1/providers/{id}"].get;
    expect(list.operationId).toBe("providers_list");
    expect(get.operationId).toBe("provider_get");
    expect(list.security).toEqual([{ gatewayKey: [] }]);
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(["q"]);
    expect(Object.keys(get.responses).sort()).toEqual(["200", "400", "401", "404"]);
    expect(document.components.schemas.Provider.required).toContain("tools");
  });
});

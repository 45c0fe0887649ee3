import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { PROVIDERS } from "../../src/registry/providers.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";
import { PRICED_PROVIDER } from "../support/priced.ts";

const everyTool = PROVIDERS.flatMap((provider) =>
  provider.tools.map((tool) => ({ provider: provider.id, endpoint: tool.endpoint, method: tool.method })),
);

const inspectGet = (
  app: ReturnType<typeof gatewayHarness>["app"],
  key: string,
  query: Record<string, string>,
) => app.request(`/v1/inspect?${new URLSearchParams(query)}`, { headers: bearer(key) });

describe("POST /v1/inspect and GET /v1/inspect", () => {
  describe("success", () => {
    test("describes every tool, the same way on POST and GET", async ({ db }) => {
      const { app } = gatewayHarness(db);
      const caller = await openAccount(db);
      expect(everyTool).toHaveLength(5);
      for (const tool of everyTool) {
        const posted = await postJson(app, "/v1/inspect", tool, bearer(caller.key));
        expect(posted.status).toBe(200);
        const body = await json(posted);
        expect(body).toMatchObject({ ...tool, price: { amount: "0", currency: "USD" } });
        expect(body.description.length).toBeGreaterThan(10);
        expect(body.input.queryParams.type).toBe("object");
        expect(body.input.pathParams.type).toBe("object");
        expect(body.input.queryParams.$schema).toBeUndefined();
        expect(await json(await inspectGet(app, caller.key, tool))).toEqual(body);
      }
    });

    test("renders each tool's parameters as JSON Schema with types, bounds and required names", async ({
      db,
    }) => {
      const { app } = gatewayHarness(db);
      const caller = await openAccount(db);
      const inspect = async (endpoint: string, provider: string) =>
        json(await postJson(app, "/v1/inspect", { provider, endpoint, method: "GET" }, bearer(caller.key)));
      const posts = await inspect("/api/v1/posts", "publisher");
      expect(posts.upstreamKey).toBe("required");
      expect(posts.input.queryParams.properties.limit).toMatchObject({
        type: "integer",
        minimum: 1,
        maximum: 100,
        default: 20,
      });
      expect(posts.input.queryParams.properties.status.enum).toContain("partial");
      expect(posts.input.queryParams.additionalProperties).toBe(false);
      const post = await inspect("/api/v1/posts/{id}", "publisher");
      expect(post.input.pathParams).toMatchObject({
        required: ["id"],
        properties: { id: { type: "string" } },
      });
      const event = await inspect("/pm/event", "markets");
      expect(event.upstreamKey).toBe("none");
      expect(event.input.queryParams.required).toEqual(["ref"]);
      const shop = await inspect("/api/shops/agent-availability", "shop");
      expect(shop.input.queryParams.properties.days).toMatchObject({
        type: "integer",
        minimum: 1,
        maximum: 31,
      });
      expect(shop.input.queryParams.required).toBeUndefined();
    });

    test("shows a priced tool's price", async ({ db }) => {
      const { app } = gatewayHarness(db, { extraProviders: [PRICED_PROVIDER] });
      const caller = await openAccount(db);
      const body = await json(await inspectGet(app, caller.key, { provider: "priced", endpoint: "/echo" }));
      expect(body.price).toEqual({ amount: "0.25", currency: "USD" });
    });
  });

  describe("errors", () => {
    test("answers 404 TOOL_NOT_FOUND for a tool that is not registered", async ({ db }) => {
      const { app } = gatewayHarness(db);
      const caller = await openAccount(db);
      const res = await postJson(
        app,
        "/v1/inspect",
        { provider: "markets", endpoint: "/pm/book" },
        bearer(caller.key),
      );
      expect(res.status).toBe(404);
      const body = await json(res);
      expect(body.error).toBe("TOOL_NOT_FOUND");
      expect(body.tools).toEqual([{ provider: "markets", endpoint: "/pm/event", method: "GET" }]);
      expect((await inspectGet(app, caller.key, { provider: "x", endpoint: "/y" })).status).toBe(404);
    });

    test("answers 400 INVALID_INPUT when the tool is not named", async ({ db }) => {
      const { app } = gatewayHarness(db);
      const caller = await openAccount(db);
      const posted = await postJson(app, "/v1/inspect", { provider: "markets" }, bearer(caller.key));
      expect(posted.status).toBe(400);
      expect((await json(posted)).issues[0].path).toBe("endpoint");
      const got = await inspectGet(app, caller.key, { endpoint: "/pm/event" });
      expect(got.status).toBe(400);
      expect((await json(got)).error).toBe("INVALID_INPUT");
    });
  });

  describe("security", () => {
    test("answers 401 without a valid gateway key", async ({ db }) => {
      const { app } = gatewayHarness(db);
      const tool = everyTool[0] as Record<string, string>;
      for (const res of [
        await postJson(app, "/v1/inspect", tool),
        await postJson(app, "/v1/inspect", tool, bearer("gwk_wrong")),
        await app.request(`/v1/inspect?${new URLSearchParams(tool)}`),
      ]) {
        expect(res.status).toBe(401);
        expect((await json(res)).error).toBe("UNAUTHORIZED");
      }
    });
  });
});

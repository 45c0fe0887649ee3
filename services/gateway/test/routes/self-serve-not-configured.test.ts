import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { SELF_SERVE_ROUTES } from "../../src/routes/self-serve-not-configured.ts";
import { gatewayHarness } from "../support/harness.ts";
import { appWithStubRails } from "../support/self-serve-stub.ts";

/** The operations of an OpenAPI document, as `METHOD /path` with Hono's `:param`s. */
function operations(document: { paths: Record<string, Record<string, unknown>> }): Set<string> {
  return new Set(
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`),
    ),
  );
}

const request = (route: (typeof SELF_SERVE_ROUTES)[number]) => ({
  path: route.path.replace(":id", "key_0123"),
  init: {
    method: route.method,
    ...(route.method === "POST" ? { headers: { "content-type": "application/json" }, body: "{}" } : {}),
  },
});

describe("a gateway without payment rails (the service started alone)", () => {
  test("answers each self-serve route 503 NOT_CONFIGURED, saying what provides the rails", async ({ db }) => {
    const { app } = gatewayHarness(db);
    for (const route of SELF_SERVE_ROUTES) {
      const { path, init } = request(route);
      const res = await app.request(path, init);
      expect(res.status, `${route.method} ${route.path}`).toBe(503);
      expect(res.headers.get("retry-after")).toBeNull();
      const body = await json(res);
      expect(body).toEqual({ error: "NOT_CONFIGURED", message: expect.any(String) });
      expect(body.message).toContain("GATEWAY_RAILS");
      expect(body.message).toContain("`npm start`");
    }
  });

  test("leaves them out of /openapi.json, and PATCH /v1/keys/{id} still takes a gateway key", async ({
    db,
  }) => {
    const { app } = gatewayHarness(db);
    const offered = operations(await json(await app.request("/openapi.json")));
    for (const route of SELF_SERVE_ROUTES) expect(offered).not.toContain(`${route.method} ${route.path}`);
    const patched = await app.request("/v1/keys/key_0123", {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ allow: ["markets"] }),
    });
    expect(patched.status).toBe(401);
    expect((await json(patched)).error).toBe("UNAUTHORIZED");
  });

  test("names exactly the routes a gateway with rails adds", async ({ db }) => {
    const { app, deps } = gatewayHarness(db);
    const withRails = operations(await json(await appWithStubRails(deps).request("/openapi.json")));
    const without = operations(await json(await app.request("/openapi.json")));
    const added = [...withRails].filter((operation) => !without.has(operation)).sort();
    expect(added).toEqual(SELF_SERVE_ROUTES.map((route) => `${route.method} ${route.path}`).sort());
  });
});

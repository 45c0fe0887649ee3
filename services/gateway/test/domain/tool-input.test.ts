import { describe, expect, test } from "vitest";
import { prepareToolInput, upstreamUrl } from "../../src/domain/tool-input.ts";
import { PROVIDERS } from "../../src/registry/providers.ts";
import { createRegistry } from "../../src/registry/registry.ts";

const registry = createRegistry(PROVIDERS, {
  shop: new URL("http://127.0.0.1:3004"),
  publisher: new URL("http://127.0.0.1:3002/prefix/"),
  markets: new URL("http://127.0.0.1:3005"),
});
const tool = (provider: string, endpoint: string) => {
  const found = registry.find(provider, endpoint, "GET");
  if (!found) throw new Error(`no tool ${provider} ${endpoint}`);
  return found;
};
const prepared = (provider: string, endpoint: string, input: unknown) => {
  const result = prepareToolInput(tool(provider, endpoint), input);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return { path: result.call.path, query: result.call.query.toString() };
};
const issuesOf = (provider: string, endpoint: string, input: unknown) => {
  const result = prepareToolInput(tool(provider, endpoint), input);
  return result.ok ? [] : result.issues.map((issue) => issue.path);
};

describe("tool input", () => {
  test("query parameters are validated, defaulted and written as strings", () => {
    expect(prepared("publisher", "/api/v1/posts", {})).toEqual({ path: "/api/v1/posts", query: "limit=20" });
    expect(
      prepared("publisher", "/api/v1/posts", { queryParams: { status: "draft", limit: "5", cursor: "c&d" } }),
    ).toEqual({
      path: "/api/v1/posts",
      query: "status=draft&limit=5&cursor=c%26d",
    });
    expect(
      prepared("shop", "/api/shops/agent-availability", { queryParams: { days: 31, partySize: 2 } }).query,
    ).toBe("days=31&partySize=2");
    expect(
      prepared("markets", "/pm/event", { queryParams: { ref: "https://polymarket.com/event/x?y=1" } }).query,
    ).toBe("ref=https%3A%2F%2Fpolymarket.com%2Fevent%2Fx%3Fy%3D1");
  });

  test("integers are whole numbers in bounds, as numbers or digit strings", () => {
    expect(issuesOf("shop", "/api/shops/agent-availability", { queryParams: { days: 0 } })).toEqual([
      "input.queryParams.days",
    ]);
    expect(issuesOf("shop", "/api/shops/agent-availability", { queryParams: { days: 32 } })).toEqual([
      "input.queryParams.days",
    ]);
    expect(issuesOf("shop", "/api/shops/agent-availability", { queryParams: { days: 1.5 } })).toEqual([
      "input.queryParams.days",
    ]);
    expect(issuesOf("shop", "/api/shops/agent-availability", { queryParams: { days: "-1" } })).toEqual([
      "input.queryParams.days",
    ]);
    expect(issuesOf("shop", "/api/shops/agent-availability", { queryParams: { days: true } })).toEqual([
      "input.queryParams.days",
    ]);
  });

  test("unknown names, unknown input parts and wrong shapes are issues with dotted paths", () => {
    expect(issuesOf("publisher", "/api/v1/connections", { queryParams: { all: "1" } })).toEqual([
      "input.queryParams",
    ]);
    expect(issuesOf("publisher", "/api/v1/connections", { headers: {} })).toEqual(["input"]);
    expect(issuesOf("publisher", "/api/v1/connections", { queryParams: "all=1" })).toEqual([
      "input.queryParams",
    ]);
    expect(issuesOf("publisher", "/api/v1/connections", "x")).toEqual(["input"]);
    expect(issuesOf("publisher", "/api/v1/posts/{id}", { pathParams: { id: 7 } })).toEqual([
      "input.pathParams.id",
    ]);
    expect(issuesOf("markets", "/pm/event", { queryParams: { ref: "x".repeat(513) } })).toEqual([
      "input.queryParams.ref",
    ]);
  });

  test("path parameters are checked and encoded into the template", () => {
    expect(prepared("publisher", "/api/v1/posts/{id}", { pathParams: { id: "p 1" } }).path).toBe(
      "/api/v1/posts/p%201",
    );
    expect(issuesOf("publisher", "/api/v1/posts/{id}", { pathParams: { id: "../x" } })).toEqual([
      "input.pathParams.id",
    ]);
  });

  test("the upstream URL keeps the provider's origin and path prefix", () => {
    const call = { path: "/api/v1/posts/p%201", query: new URLSearchParams({ limit: "5" }) };
    expect(upstreamUrl(new URL("http://127.0.0.1:3002/prefix/"), call).href).toBe(
      "http://127.0.0.1:3002/prefix/api/v1/posts/p%201?limit=5",
    );
    expect(
      upstreamUrl(new URL("http://127.0.0.1:3002"), { ...call, query: new URLSearchParams() }).href,
    ).toBe("http://127.0.0.1:3002/api/v1/posts/p%201");
    expect(() => upstreamUrl(new URL("http://127.0.0.1:3002"), { ...call, path: "/../../etc" })).toThrow();
  });
});

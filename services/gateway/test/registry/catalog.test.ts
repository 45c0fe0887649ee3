import { describe, expect, test } from "vitest";
import { GatewayError } from "../../src/errors.ts";
import { catalogOf } from "../../src/registry/catalog.ts";
import { PROVIDERS } from "../../src/registry/providers.ts";
import { createRegistry } from "../../src/registry/registry.ts";
import { describeTool } from "../../src/registry/tool-description.ts";
import { findProvider } from "../../src/runner/find-provider.ts";

const nowhere = new URL("http://127.0.0.1:9");
const registry = createRegistry(PROVIDERS, { shop: nowhere, publisher: nowhere, markets: nowhere });

/** Provider id → its tools' endpoints. */
const endpoints = (catalog: ReturnType<typeof catalogOf>) =>
  Object.fromEntries(catalog.map((provider) => [provider.id, provider.tools.map((tool) => tool.endpoint)]));

describe("catalogOf", () => {
  test("lists every registered tool, each with its name and the description inspect gives", () => {
    const catalog = catalogOf(registry);
    const tools = catalog.flatMap((provider) => provider.tools);
    expect(tools).toEqual(registry.tools().map((tool) => ({ name: tool.name, ...describeTool(tool) })));
  });

  test("keeps only the provider asked for, and none for an unknown id", () => {
    expect(catalogOf(registry, { provider: "markets" }).map((provider) => provider.id)).toEqual(["markets"]);
    expect(catalogOf(registry, { provider: "weather" })).toEqual([]);
  });

  test("a query matches when every word is somewhere in the tool's text; blank matches all", () => {
    expect(endpoints(catalogOf(registry, { query: "post ID" }))).toEqual({
      publisher: ["/api/v1/posts/{id}"],
    });
    expect(endpoints(catalogOf(registry, { query: "shop cursor" }))).toEqual({});
    expect(catalogOf(registry, { query: " \t" })).toEqual(catalogOf(registry));
  });

  test("leaves out the tools allows refuses, and providers left with none", () => {
    const catalog = catalogOf(registry, {
      allows: (tool) => tool.endpoint !== "/api/shops/agent-availability",
    });
    expect(catalog.map((provider) => provider.id)).toEqual(["publisher", "markets"]);
    const onlyGetPost = catalogOf(registry, {
      provider: "publisher",
      allows: (tool) => tool.endpoint === "/api/v1/posts/{id}",
    });
    expect(endpoints(onlyGetPost)).toEqual({ publisher: ["/api/v1/posts/{id}"] });
  });
});

describe("findProvider", () => {
  test("answers the provider with its tools", () => {
    expect(findProvider(registry, "shop").tools.map((tool) => tool.name)).toEqual(["Shop availability"]);
  });

  test("a provider whose every tool is hidden is as unknown as an unregistered one", () => {
    const allows = (tool: { provider: { id: string } }) => tool.provider.id !== "shop";
    let refused: unknown;
    try {
      findProvider(registry, "shop", { allows });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as GatewayError).toBody()).toMatchObject({
      error: "PROVIDER_NOT_FOUND",
      providers: ["publisher", "markets"],
    });
  });
});

import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { formatUsd } from "../../src/domain/money.ts";
import { PROVIDERS } from "../../src/registry/providers.ts";
import { gatewayHarness } from "../support/harness.ts";
import { PRICED_PROVIDER } from "../support/priced.ts";

describe("GET /llms.txt", () => {
  test("is plain guidance for agents, served without a key", async ({ db }) => {
    const { app } = gatewayHarness(db);
    const res = await app.request("/llms.txt");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text.startsWith("# Tool Gateway\n\n- ")).toBe(true);
    for (const line of text.trimEnd().split("\n").slice(2)) expect(line.startsWith("- ")).toBe(true);
    expect(text).toContain("Authorization: Bearer");
    expect(text).toContain("X-Upstream-Key");
    for (const route of [
      "GET /v1/providers",
      "GET /v1/providers/{id}",
      "/v1/inspect",
      "POST /v1/run",
      "POST /mcp",
    ]) {
      expect(text).toContain(route);
    }
  });

  test("lists every registered tool with its provider, endpoint and price", async ({ db }) => {
    const { app } = gatewayHarness(db, { extraProviders: [PRICED_PROVIDER] });
    const lines = (await (await app.request("/llms.txt")).text()).split("\n");
    const declared = [...PROVIDERS, PRICED_PROVIDER].flatMap((provider) =>
      provider.tools.map((tool) => ({ provider, tool })),
    );
    expect(lines.filter((line) => line.startsWith("- Tool "))).toHaveLength(declared.length);
    for (const { provider, tool } of declared) {
      const line = lines.find((candidate) => candidate.startsWith(`- Tool ${tool.name}:`));
      expect(line, tool.name).toContain(`provider \`${provider.id}\`, ${tool.method} ${tool.endpoint}`);
      expect(line).toContain(`$${formatUsd(tool.priceMicro)} a run`);
      if (provider.upstreamKeyHeader) expect(line).toContain(provider.upstreamKeyHeader);
      else expect(line).toContain("needs no upstream key");
    }
    expect(lines.find((line) => line.startsWith("- Tool Priced echo:"))).toContain("$0.25 a run");
  });
});

import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { formatUsd } from "../../src/domain/money.ts";
import { PROVIDERS } from "../../src/registry/providers.ts";
import { SELF_SERVE_STEPS } from "../../src/self-serve/guidance.ts";
import { gatewayHarness } from "../support/harness.ts";
import { PRICED_PROVIDER } from "../support/priced.ts";
import { appWithStubRails } from "../support/self-serve-stub.ts";

/** The routes the history line names, with the same gateway key. */
const HISTORY_ROUTES = ["GET /v1/runs", "GET /v1/runs/{id}", "GET /v1/usage", "GET /v1/ledger"];

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
      ...HISTORY_ROUTES,
    ]) {
      expect(text).toContain(route);
    }
    expect(text).toContain("nextCursor");
  });

  test("without payment rails, says keys come from the operator and the self-serve routes are not configured", async ({
    db,
  }) => {
    const { app } = gatewayHarness(db);
    const text = await (await app.request("/llms.txt")).text();
    expect(text).toContain("503 NOT_CONFIGURED");
    for (const step of SELF_SERVE_STEPS) expect(text).not.toContain(step);
    expect(text).not.toContain("SIGN-IN-WITH-X");
  });

  test("with payment rails, tells the self-serve path after how to authenticate, as /.well-known/x402 does", async ({
    db,
  }) => {
    const app = appWithStubRails(gatewayHarness(db).deps);
    const lines = (await (await app.request("/llms.txt")).text()).split("\n");
    const authenticate = lines.findIndex((line) => line.includes("Authorization: Bearer"));
    expect(lines.slice(authenticate + 1, authenticate + 1 + SELF_SERVE_STEPS.length)).toEqual(
      SELF_SERVE_STEPS.map((step) => `- ${step}`),
    );
    for (const route of ["POST /v1/accounts", "POST /v1/credits", "POST /v1/keys", ...HISTORY_ROUTES]) {
      expect(lines.join("\n")).toContain(route);
    }
    expect(lines.join("\n")).not.toContain("NOT_CONFIGURED");
    const { instructions } = await json(await app.request("/.well-known/x402"));
    for (const step of SELF_SERVE_STEPS) expect(instructions).toContain(step);
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

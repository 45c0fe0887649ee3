import { describe, expect, test } from "vitest";
import {
  allowsTool,
  changedPolicy,
  dayResetsAt,
  isLimited,
  NO_POLICY,
  policyChangeIssues,
  toolName,
} from "../../src/domain/key-policy.ts";

const TOOLS = [
  { provider: "markets", endpoint: "/pm/event", method: "GET" },
  { provider: "publisher", endpoint: "/api/v1/posts", method: "GET" },
  { provider: "publisher", endpoint: "/api/v1/posts/{id}", method: "GET" },
];

describe("key policies", () => {
  test("a tool is named provider, endpoint and method, space-separated", () => {
    expect(toolName({ provider: "publisher", endpoint: "/api/v1/posts/{id}", method: "GET" })).toBe(
      "publisher /api/v1/posts/{id} GET",
    );
  });

  test("an allowlist lets through the tools of its providers and the tools it names, and nothing else", () => {
    const access = { allow: ["markets", "publisher /api/v1/posts GET"], ratePerMinute: null };
    expect(TOOLS.map((tool) => allowsTool(access, tool))).toEqual([true, true, false]);
    expect(TOOLS.every((tool) => allowsTool(undefined, tool))).toBe(true);
    expect(TOOLS.every((tool) => allowsTool({ allow: null, ratePerMinute: 5 }, tool))).toBe(true);
  });

  test("a change replaces the parts it gives, clears those it gives as null, keeps the rest", () => {
    const policy = changedPolicy(NO_POLICY, { allow: ["markets", "markets"], dailyCapMicro: 5n });
    expect(policy).toEqual({ ...NO_POLICY, allow: ["markets"], dailyCapMicro: 5n });
    expect(isLimited(policy)).toBe(true);
    const cleared = changedPolicy(policy, { allow: null, toolCapsMicro: { "markets /pm/event GET": 1n } });
    expect(cleared).toEqual({
      ...NO_POLICY,
      dailyCapMicro: 5n,
      toolCapsMicro: { "markets /pm/event GET": 1n },
    });
    expect(isLimited(changedPolicy(cleared, { dailyCapMicro: null, toolCapsMicro: null }))).toBe(false);
  });

  test("a change naming what the gateway does not have, or out of bounds, has issues at its paths", () => {
    expect(policyChangeIssues({ allow: ["markets", "publisher /api/v1/posts GET"] }, TOOLS)).toEqual([]);
    expect(
      policyChangeIssues(
        {
          allow: ["shop", "markets /pm/event POST"],
          toolCapsMicro: { markets: 1n, "markets /pm/event GET": 1n },
          ratePerMinute: 0,
        },
        TOOLS,
      ).map((issue) => issue.path),
    ).toEqual(["allow.0", "allow.1", "toolCaps.markets", "ratePerMinute"]);
    expect(policyChangeIssues({ allow: [] }, TOOLS).map((issue) => issue.path)).toEqual(["allow"]);
  });

  test("a day's spend is forgotten at the UTC midnight that ends it", () => {
    expect(dayResetsAt("2026-02-28").toISOString()).toBe("2026-03-01T00:00:00.000Z");
  });
});

import { silentLogger } from "@app/testkit";
import { describe, expect, it } from "vitest";
import { hostileJsonIssue, MAX_JSON_DEPTH } from "../src/http/hostile-json.ts";
import { createRoute, createServiceApp, z } from "../src/index.ts";

const nested = (depth: number): unknown => {
  let value: unknown = "leaf";
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value;
};

describe("hostile JSON", () => {
  it("names the first NUL, unpaired surrogate or over-deep nesting, keys included, at any depth", () => {
    expect(hostileJsonIssue({ name: "fine", list: [1, "two", { three: true }] })).toBeUndefined();
    expect(hostileJsonIssue({ items: [{ label: "a\u0000b" }] })).toEqual({
      path: "items.0.label",
      message: "must not contain NUL",
    });
    expect(hostileJsonIssue({ note: "x\uD800y" })?.path).toBe("note");
    expect(hostileJsonIssue({ note: "x\uDC00" })?.message).toBe(
      "must be well-formed text (no lone surrogates)",
    );
    expect(hostileJsonIssue({ note: "a 😀 pair" })).toBeUndefined();
    expect(hostileJsonIssue({ ["k\u0000"]: 1 })?.message).toMatch(/has a key that must not contain NUL/);
    expect(hostileJsonIssue(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(hostileJsonIssue(nested(MAX_JSON_DEPTH + 1))?.message).toBe(
      `nests deeper than ${MAX_JSON_DEPTH} levels`,
    );
    // 100,000 levels: walked without recursion, no stack overflow.
    expect(hostileJsonIssue(nested(100_000))?.message).toMatch(/nests deeper/);
  });
});

describe("every service's validated JSON bodies", () => {
  const app = createServiceApp({
    name: "t",
    title: "t",
    version: "1",
    logger: silentLogger(),
    checkReady: async () => undefined,
  });
  const route = createRoute({
    method: "post",
    path: "/things",
    operationId: "things",
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z.object({ name: z.string(), input: z.record(z.string(), z.unknown()) }),
          },
        },
      },
    },
    responses: { 200: { description: "ok" } },
  });
  let reached = 0;
  app.openapi(route, (c) => {
    reached += 1;
    return c.json(c.req.valid("json"), 200);
  });
  const post = (body: string) =>
    app.request("/things", { method: "POST", headers: { "content-type": "application/json" }, body });

  it("refuse a NUL, an unpaired surrogate or 5,000 levels with 400 VALIDATION_FAILED naming the path, before the route", async () => {
    const cases = [
      ['{"name":"a\\u0000b","input":{}}', "name"],
      ['{"name":"ok","input":{"x":"\\ud800"}}', "input.x"],
      [
        `{"name":"ok","input":${'{"a":'.repeat(5000)}"leaf"${"}".repeat(5000)}}`,
        `input${".a".repeat(MAX_JSON_DEPTH - 1)}`,
      ],
    ] as const;
    for (const [body, path] of cases) {
      const res = await post(body);
      expect(res.status).toBe(400);
      const answer = (await res.json()) as { error: string; issues: { path: string }[] };
      expect(answer.error).toBe("VALIDATION_FAILED");
      expect(answer.issues[0]?.path).toBe(path);
    }
    expect(reached).toBe(0);
    expect((await post('{"name":"ok","input":{"deep":{"er":[1,2,"😀"]}}}')).status).toBe(200);
    expect(reached).toBe(1);
  });
});

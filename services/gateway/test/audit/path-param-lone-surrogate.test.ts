import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { bearer, gatewayHarness, openAccount } from "../support/harness.ts";

describe("audit: a path parameter that is not well-formed UTF-16", () => {
  // src/domain/path-template.ts renderPath: encodeURIComponent throws URIError on a lone
  // surrogate; nothing catches it, so a hostile `id` is a 500 INTERNAL instead of a 400.
  test("is a 400 INVALID_INPUT naming input.pathParams.id, not a 500", async ({ db }) => {
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    const h = gatewayHarness(db, { upstream });
    const caller = await openAccount(db);
    const res = await h.app.request("/v1/run", {
      method: "POST",
      headers: { "content-type": "application/json", "x-upstream-key": "pub_key_123", ...bearer(caller.key) },
      body: '{"provider":"publisher","endpoint":"/api/v1/posts/{id}","method":"GET","input":{"pathParams":{"id":"post_\\ud800"}}}',
    });
    const body = (await res.json()) as { error: string; issues?: { path: string }[] };
    expect(res.status).toBe(400);
    expect(body.error).toBe("INVALID_INPUT");
    expect(body.issues?.[0]?.path).toBe("input.pathParams.id");
    expect(upstream.requests).toHaveLength(0);
    await h.close();
  });

  test("over MCP is an isError tool result, not an INTERNAL one", async ({ db }) => {
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    const h = gatewayHarness(db, { upstream });
    const caller = await openAccount(db);
    const res = await h.app.request("/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "x-upstream-key": "pub_key_123",
        ...bearer(caller.key),
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run","arguments":{"provider":"publisher","endpoint":"/api/v1/posts/{id}","input":{"pathParams":{"id":"\\udc00"}}}}}',
    });
    const body = (await res.json()) as { result: { structuredContent: { error: string } } };
    expect(body.result.structuredContent.error).toBe("INVALID_INPUT");
    await h.close();
  });
});

describe("text that is not well-formed, elsewhere in the input", () => {
  /** A markets run whose `ref` query value is `escaped` (JSON escapes as written); its answer and the upstream calls. */
  async function runWithRef(db: Parameters<typeof gatewayHarness>[0], escaped: string) {
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    const h = gatewayHarness(db, { upstream });
    const caller = await openAccount(db);
    const res = await h.app.request("/v1/run", {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(caller.key) },
      body: `{"provider":"markets","endpoint":"/pm/event","method":"GET","input":{"queryParams":{"ref":"${escaped}"}}}`,
    });
    const body = (await res.json()) as { error: string; issues?: { path: string; message: string }[] };
    await h.close();
    return { status: res.status, body, upstreamCalls: upstream.requests.length };
  }

  test("a query value with a lone surrogate is a 400, not silently U+FFFD upstream", async ({ db }) => {
    const { status, body, upstreamCalls } = await runWithRef(db, "a\\udfffb");
    expect(status).toBe(400);
    expect(body.error).toBe("INVALID_INPUT");
    expect(body.issues?.[0]?.path).toBe("input.queryParams.ref");
    expect(upstreamCalls).toBe(0);
  });

  test("a query value with NUL is a 400, not a NUL byte sent upstream", async ({ db }) => {
    const { status, body, upstreamCalls } = await runWithRef(db, "a\\u0000b");
    expect(status).toBe(400);
    expect(body.error).toBe("INVALID_INPUT");
    expect(body.issues?.[0]).toEqual({ path: "input.queryParams.ref", message: "must not contain NUL" });
    expect(upstreamCalls).toBe(0);
  });

  test("a path parameter with NUL, plain or escaped, is a 400", async ({ db }) => {
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    const h = gatewayHarness(db, { upstream });
    const caller = await openAccount(db);
    for (const id of ["a\\u0000b", "a%00b", "a%2500b"]) {
      const res = await h.app.request("/v1/run", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-upstream-key": "pub_key_123",
          ...bearer(caller.key),
        },
        body: `{"provider":"publisher","endpoint":"/api/v1/posts/{id}","method":"GET","input":{"pathParams":{"id":"${id}"}}}`,
      });
      expect(res.status).toBe(400);
    }
    expect(upstream.requests).toHaveLength(0);
    await h.close();
  });
});

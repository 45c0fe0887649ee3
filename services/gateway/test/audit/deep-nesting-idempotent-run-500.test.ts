import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeUpstreamClient } from "../../src/upstream/client.fake.ts";
import { bearer, gatewayHarness, openAccount } from "../support/harness.ts";

/** Attack: 5,000 levels of nesting in a run with an Idempotency-Key was a 500 (stack overflow in canonicalJson). */
describe("audit: a deeply nested run input with an Idempotency-Key", () => {
  test("is a 400 naming where it nests too deep, and the upstream is never called", async ({ db }) => {
    const upstream = new FakeUpstreamClient(() => ({
      status: 200,
      contentType: "application/json",
      retryAfter: undefined,
      body: new TextEncoder().encode("{}"),
    }));
    const h = gatewayHarness(db, { upstream });
    const caller = await openAccount(db);
    const deep = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`;
    const body = `{"provider":"markets","endpoint":"/pm/event","method":"GET","input":{"queryParams":{"ref":${deep}}}}`;
    const res = await h.app.request("/v1/run", {
      method: "POST",
      headers: { ...bearer(caller.key), "idempotency-key": "deep-1", "content-type": "application/json" },
      body,
    });
    const answer = (await res.json()) as { error: string; issues: { path: string; message: string }[] };
    expect(res.status, JSON.stringify(answer).slice(0, 300)).toBe(400);
    expect(answer.error).toBe("INVALID_INPUT");
    expect(answer.issues[0]?.message).toMatch(/nests deeper than/);
    expect(upstream.requests).toHaveLength(0);
    await h.close();
  });
});

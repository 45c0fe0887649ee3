import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeUpstreamClient } from "../../src/upstream/client.fake.ts";
import { sendJson, startServer } from "../support/fake-upstreams.ts";
import { bearer, gatewayHarness, openAccount, postJson } from "../support/harness.ts";

const event = {
  provider: "markets",
  endpoint: "/pm/event",
  method: "GET",
  input: { queryParams: { ref: "x" } },
};

/** An upstream answer that is valid JSON but that PostgreSQL's jsonb refuses (\u0000, a lone surrogate). */
const answer = (jsonText: string) =>
  new FakeUpstreamClient(() => ({
    status: 200,
    contentType: "application/json",
    retryAfter: undefined,
    body: new TextEncoder().encode(jsonText),
  }));

describe("audit: an Idempotency-Key run whose upstream output jsonb cannot hold", () => {
  // src/store/idempotency.ts complete() casts the envelope to jsonb; "\u0000" or an unpaired
  // surrogate escape in the upstream's (valid) JSON makes it throw after the run happened: the
  // caller gets a 500, and the row stays 'pending', so every retry is 409 REQUEST_IN_PROGRESS.
  for (const [name, text] of [
    ["a NUL escape", '{"title":"a\\u0000b"}'],
    ["a lone surrogate escape", '{"title":"a\\ud800b"}'],
  ] as const) {
    test(`answers the envelope and replays it (${name})`, async ({ db }) => {
      const upstream = answer(text);
      const h = gatewayHarness(db, { upstream });
      const caller = await openAccount(db);
      const headers = { ...bearer(caller.key), "idempotency-key": `k-${name.length}` };
      const first = await postJson(h.app, "/v1/run", event, headers);
      expect(first.status).toBe(200);
      const retry = await postJson(h.app, "/v1/run", event, headers);
      expect(retry.status).toBe(200);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(upstream.requests).toHaveLength(1);
      await h.close();
    });
  }

  // End to end: the real shop answers an unknown `service` with 404 {error: "SERVICE_NOT_FOUND",
  // message, service: <the id as sent>} (services/shop/src/routes/shared.ts serviceNotFound), so a
  // caller picks the NUL that jsonb refuses. This loopback upstream answers exactly that.
  test("a shop run with service NUL is refused before the upstream, its retry too (no 500, no stuck key)", async ({
    db,
  }) => {
    let upstreamCalls = 0;
    const shop = await startServer((_req, res, url) => {
      upstreamCalls += 1;
      sendJson(res, 404, {
        error: "SERVICE_NOT_FOUND",
        message: "Your shop has no service with this id.",
        service: url.searchParams.get("service"),
      });
    });
    const h = gatewayHarness(db, { urls: { shop: shop.url } });
    const caller = await openAccount(db);
    const body = {
      provider: "shop",
      endpoint: "/api/shops/agent-availability",
      method: "GET",
      input: { queryParams: { service: "\u0000" } },
    };
    const headers = { ...bearer(caller.key), "x-upstream-key": "shk_anything", "idempotency-key": "nul" };
    const first = await postJson(h.app, "/v1/run", body, headers);
    const retry = await postJson(h.app, "/v1/run", body, headers);
    const refusal = (await first.json()) as { error: string };
    await h.close();
    await shop.close();
    expect({ first: first.status, retry: retry.status }).toEqual({ first: 400, retry: 400 });
    expect(refusal.error).toBe("INVALID_INPUT");
    expect(upstreamCalls).toBe(0);
  });
});

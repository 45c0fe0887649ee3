import { storedJsonText } from "@app/edge";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { gatewayIdempotencyStore, PENDING_LEASE_MARGIN_MS } from "../../src/store/idempotency.ts";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { bearer, fakeClock, gatewayHarness, openAccount, postJson } from "../support/harness.ts";

const event = {
  provider: "markets",
  endpoint: "/pm/event",
  method: "GET",
  input: { queryParams: { ref: "x" } },
};

describe("Idempotency-Key leases", () => {
  test("a pending key is in progress within its lease, taken over after; the old holder cannot complete it", async ({
    db,
  }) => {
    const clock = fakeClock();
    const caller = await openAccount(db);
    // The gateway's wiring: the upstream's deadline (10 s here) plus the margin.
    const store = gatewayIdempotencyStore(db, clock, 10_000);
    const run = { scope: caller.accountId, key: "k", fingerprint: "hash" };
    const first = await store.begin(run);
    expect(first.kind).toBe("started");
    clock.advance(10_000 + PENDING_LEASE_MARGIN_MS - 1);
    expect((await store.begin(run)).kind).toBe("in_progress");
    clock.advance(1);
    const second = await store.begin(run);
    expect(second.kind).toBe("started");
    if (first.kind !== "started" || second.kind !== "started") return;
    // The first holder, back from the dead, neither completes nor releases its successor's key.
    expect(await store.complete(first.lease, storedJsonText(200, '{"old":true}'))).toBe(false);
    await store.release(first.lease);
    expect((await store.begin(run)).kind).toBe("in_progress");
    expect(await store.complete(second.lease, storedJsonText(200, '{"new":true}'))).toBe(true);
    expect(await store.begin(run)).toEqual({
      kind: "replay",
      response: storedJsonText(200, '{"new":true}'),
      attachment: undefined,
    });
  });

  test("an answer that cannot be stored releases the key, and the run still answers", async ({ db }) => {
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    const h = gatewayHarness(db, { upstream });
    const caller = await openAccount(db);
    let failures = 1;
    const complete = h.deps.idempotency.complete.bind(h.deps.idempotency);
    h.deps.idempotency.complete = async (...args) => {
      if (failures-- > 0) throw new Error("connection terminated unexpectedly");
      return complete(...args);
    };
    const headers = { ...bearer(caller.key), "idempotency-key": "unstored" };
    expect((await postJson(h.app, "/v1/run", event, headers)).status).toBe(200);
    const retry = await postJson(h.app, "/v1/run", event, headers);
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(upstream.requests).toHaveLength(2);
    await h.close();
  });

  test("the replay is the JSON text that was answered, byte for byte", async ({ db }) => {
    const upstream = new FakeUpstreamClient(() => ({
      status: 200,
      contentType: "application/json",
      retryAfter: undefined,
      body: new TextEncoder().encode('{"z": 1, "a": [1.0, "\\u0000"]}'),
    }));
    const h = gatewayHarness(db, { upstream });
    const caller = await openAccount(db);
    const headers = { ...bearer(caller.key), "idempotency-key": "exact" };
    const first = await (await postJson(h.app, "/v1/run", event, headers)).text();
    const retry = await postJson(h.app, "/v1/run", event, headers);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.text()).toBe(first);
    await h.close();
  });
});

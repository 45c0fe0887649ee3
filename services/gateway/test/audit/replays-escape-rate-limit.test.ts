import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { bearer, fakeClock, gatewayHarness, openAccount, postJson } from "../support/harness.ts";

const event = (ref = "x") => ({
  provider: "markets",
  endpoint: "/pm/event",
  method: "GET",
  input: { queryParams: { ref } },
});

describe("audit: requests answered from a key's Idempotency-Key, past the key's runs limit", () => {
  // Only a run took a token from the key's bucket: a replay, a 409 or a 422 did not, so a key
  // limited to 2 runs a minute could make hundreds of requests (and their statements) a minute.
  test("replays and 422s count against the limit: past it they are 429s", async ({ db }) => {
    const clock = fakeClock();
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    const h = gatewayHarness(db, { upstream, clock, runsPerMinute: 2 });
    const caller = await openAccount(db);
    const headers = { ...bearer(caller.key), "idempotency-key": "replay-me" };
    expect((await postJson(h.app, "/v1/run", event(), headers)).status).toBe(200);
    const replay = await postJson(h.app, "/v1/run", event(), headers);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.headers.get("ratelimit-remaining")).toBe("0");

    const replayPastLimit = await postJson(h.app, "/v1/run", event(), headers);
    expect(replayPastLimit.status).toBe(429);
    expect(await json(replayPastLimit)).toMatchObject({ error: "RATE_LIMITED" });
    expect((await postJson(h.app, "/v1/run", event("other"), headers)).status).toBe(429);
    expect((await postJson(h.app, "/v1/run", event("fresh"), bearer(caller.key))).status).toBe(429);
    expect(upstream.requests).toHaveLength(1);
    await h.close();
  });

  test("409s for a run still in flight count against the limit too", async ({ db }) => {
    const clock = fakeClock();
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const upstream = new FakeUpstreamClient(async () => {
      await released;
      return jsonAnswer(200, { ok: true });
    });
    const h = gatewayHarness(db, { upstream, clock, runsPerMinute: 3 });
    const caller = await openAccount(db);
    const headers = { ...bearer(caller.key), "idempotency-key": "in-flight" };
    const first = postJson(h.app, "/v1/run", event(), headers);
    while (upstream.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await postJson(h.app, "/v1/run", event(), headers)).status);
    expect(statuses).toEqual([409, 409, 429]);
    release();
    expect((await first).status).toBe(200);
    await h.close();
  });

  test("a run is counted once: as many runs pass as the limit allows, with or without a key", async ({
    db,
  }) => {
    const clock = fakeClock();
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    const h = gatewayHarness(db, { upstream, clock, runsPerMinute: 3 });
    const caller = await openAccount(db);
    const keyed = (key: string) => ({ ...bearer(caller.key), "idempotency-key": key });
    const first = await postJson(h.app, "/v1/run", event(), bearer(caller.key));
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-remaining")).toBe("2");
    const second = await postJson(h.app, "/v1/run", event(), keyed("one"));
    expect(second.status).toBe(200);
    expect(second.headers.get("ratelimit-remaining")).toBe("1");
    expect((await postJson(h.app, "/v1/run", event(), keyed("two"))).status).toBe(200);
    expect((await postJson(h.app, "/v1/run", event(), keyed("three"))).status).toBe(429);
    expect(upstream.requests).toHaveLength(3);
    await h.close();
  });
});

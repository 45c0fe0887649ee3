import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeUpstreamClient, jsonAnswer } from "../src/upstream/client.fake.ts";
import { bearer, fakeClock, gatewayHarness, openAccount, postJson } from "./support/harness.ts";

const event = {
  provider: "markets",
  endpoint: "/pm/event",
  method: "GET",
  input: { queryParams: { ref: "x" } },
};

describe("the per-key rate limit", () => {
  test("holds across two gateway instances on one database, even under concurrent runs", async ({ db }) => {
    const clock = fakeClock();
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    const first = gatewayHarness(db, { runsPerMinute: 10, clock, upstream });
    const second = gatewayHarness(db, { runsPerMinute: 10, clock, upstream });
    const caller = await openAccount(db);
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        postJson((index % 2 === 0 ? first : second).app, "/v1/run", event, bearer(caller.key)),
      ),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(6);
    expect(upstream.requests).toHaveLength(10);
  });

  test("sends the fake upstream exactly the registered URL and the gateway's own headers", async ({ db }) => {
    const upstream = new FakeUpstreamClient();
    const { app } = gatewayHarness(db, {
      upstream,
      urls: { publisher: new URL("http://publisher.test/base") },
    });
    const caller = await openAccount(db);
    await postJson(
      app,
      "/v1/run",
      {
        provider: "publisher",
        endpoint: "/api/v1/posts/{id}",
        method: "GET",
        input: { pathParams: { id: "p 1" } },
      },
      {
        ...bearer(caller.key),
        "x-upstream-key": "pub_key",
        cookie: "session=1",
        "x-forwarded-for": "10.0.0.1",
      },
    );
    expect(upstream.requests).toHaveLength(1);
    const [sent] = upstream.requests;
    expect(sent?.url.href).toBe("http://publisher.test/base/api/v1/posts/p%201");
    expect(sent?.headers).toEqual({
      accept: "application/json",
      "user-agent": "agent-platform-gateway/1.0",
      "x-api-key": "pub_key",
    });
  });
});

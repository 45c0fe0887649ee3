import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { runFingerprint } from "../../src/domain/fingerprint.ts";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { bearer, fakeClock, gatewayHarness, openAccount, postJson } from "../support/harness.ts";

const event = {
  provider: "markets",
  endpoint: "/pm/event",
  method: "GET",
  input: { queryParams: { ref: "x" } },
};

describe("audit: an Idempotency-Key whose first run never finished", () => {
  // The store's begin() once expired only 'done' rows; a 'pending' row left by a crash (or by
  // complete() failing after the run) answered 409 REQUEST_IN_PROGRESS forever.
  test("is usable again once the run is long dead, instead of 409 REQUEST_IN_PROGRESS forever", async ({
    db,
  }) => {
    const clock = fakeClock();
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    const h = gatewayHarness(db, { upstream, clock });
    const caller = await openAccount(db);
    // The instance that began this run crashed two days ago, mid-run.
    const begun = await h.deps.idempotency.begin({
      scope: caller.accountId,
      key: "crashed-run",
      fingerprint: runFingerprint(event),
    });
    expect(begun.kind).toBe("started");
    clock.advance(48 * 3600_000);
    const res = await postJson(h.app, "/v1/run", event, {
      ...bearer(caller.key),
      "idempotency-key": "crashed-run",
    });
    expect(res.status).toBe(200);
    await h.close();
  });
});

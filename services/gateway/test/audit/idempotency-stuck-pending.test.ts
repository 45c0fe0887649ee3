import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { bearer, fakeClock, gatewayHarness, openAccount, postJson } from "../support/harness.ts";

const event = {
  provider: "markets",
  endpoint: "/pm/event",
  method: "GET",
  input: { queryParams: { ref: "x" } },
};

describe("audit: an Idempotency-Key whose first run never finished", () => {
  // src/store/idempotency.ts begin(): only 'done' rows expire; a 'pending' row left by a
  // crash (or by complete() failing after the run) answers 409 REQUEST_IN_PROGRESS forever.
  test("is usable again once the run is long dead, instead of 409 REQUEST_IN_PROGRESS forever", async ({
    db,
  }) => {
    const clock = fakeClock();
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    const h = gatewayHarness(db, { upstream, clock });
    const caller = await openAccount(db);
    // The instance that began this run crashed two days ago, mid-run.
    await db.query(
      `INSERT INTO gateway.idempotent_runs (account_id, idempotency_key, request_hash, state, created_at)
       VALUES ($1, 'crashed-run', $2, 'pending', $3)`,
      [
        caller.accountId,
        (await import("../../src/domain/fingerprint.ts")).runFingerprint(event),
        new Date(clock.now().getTime() - 48 * 3600_000),
      ],
    );
    const res = await postJson(h.app, "/v1/run", event, {
      ...bearer(caller.key),
      "idempotency-key": "crashed-run",
    });
    expect(res.status).toBe(200);
    await h.close();
  });
});

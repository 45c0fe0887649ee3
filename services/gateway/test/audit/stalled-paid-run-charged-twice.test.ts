import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { DEFAULT_PENDING_LEASE_MS } from "../../src/store/idempotency.ts";
import { balanceOf } from "../../src/store/runs.ts";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { bearer, fakeClock, gatewayHarness, openAccount, postJson } from "../support/harness.ts";
import { PRICE_MICRO, PRICED_PROVIDER, pricedRun } from "../support/priced.ts";

/** A promise and the function that settles it: where a test holds a run still. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("audit: a priced run that stalls past its Idempotency-Key's lease, retried with the key", () => {
  // The key of a priced run was held only for the upstream's deadline plus 60 s: a run stalled
  // past that after its charge (a long pause, a lock wait) had its key taken over by the retry,
  // which ran and charged again (two upstream calls, two charges).
  test("is charged once: the retry is told the run is still in progress, then replays its answer", async ({
    db,
  }) => {
    const clock = fakeClock();
    const stall = gate();
    const upstream = new FakeUpstreamClient(async () => {
      if (upstream.requests.length === 1) await stall.opened;
      return jsonAnswer(200, { ok: true, call: upstream.requests.length });
    });
    const h = gatewayHarness(db, { upstream, clock, extraProviders: [PRICED_PROVIDER] });
    const caller = await openAccount(db, 10n * PRICE_MICRO);
    const headers = { ...bearer(caller.key), "idempotency-key": "stalled-after-charge" };

    const first = postJson(h.app, "/v1/run", pricedRun(), headers);
    await until(() => upstream.requests.length === 1);
    clock.advance(DEFAULT_PENDING_LEASE_MS + 1_000);
    const retry = await postJson(h.app, "/v1/run", pricedRun(), headers);
    expect(retry.status).toBe(409);
    expect(retry.headers.get("retry-after")).toBe("1");
    expect(await json(retry)).toMatchObject({ error: "REQUEST_IN_PROGRESS" });

    stall.open();
    const answered = await first;
    expect(answered.status).toBe(200);
    const replay = await postJson(h.app, "/v1/run", pricedRun(), headers);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.text()).toBe(await answered.text());
    expect(upstream.requests).toHaveLength(1);
    expect(await balanceOf(db, caller.accountId)).toBe(9n * PRICE_MICRO);
    await h.close();
  });

  test("a run whose key was taken over before its charge charges nothing and answers 409", async ({ db }) => {
    const clock = fakeClock();
    const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
    const h = gatewayHarness(db, { upstream, clock, extraProviders: [PRICED_PROVIDER] });
    const caller = await openAccount(db, 10n * PRICE_MICRO);
    const headers = { ...bearer(caller.key), "idempotency-key": "stalled-before-charge" };
    // The first request stalls just before its pin, long enough for its lease to run out.
    const stall = gate();
    let pins = 0;
    const pin = h.deps.idempotency.pin.bind(h.deps.idempotency);
    h.deps.idempotency.pin = async (lease) => {
      pins += 1;
      if (pins === 1) await stall.opened;
      return pin(lease);
    };

    const first = postJson(h.app, "/v1/run", pricedRun(), headers);
    const settled = await Promise.race([until(() => pins === 1).then(() => false), first.then(() => true)]);
    expect(settled).toBe(false);
    clock.advance(DEFAULT_PENDING_LEASE_MS + 1_000);
    const retry = await postJson(h.app, "/v1/run", pricedRun(), headers);
    expect(retry.status).toBe(200);

    stall.open();
    const stalled = await first;
    expect(stalled.status).toBe(409);
    expect(await json(stalled)).toMatchObject({ error: "REQUEST_IN_PROGRESS" });
    expect(upstream.requests).toHaveLength(1);
    expect(await balanceOf(db, caller.accountId)).toBe(9n * PRICE_MICRO);
    const replay = await postJson(h.app, "/v1/run", pricedRun(), headers);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    await h.close();
  });
});

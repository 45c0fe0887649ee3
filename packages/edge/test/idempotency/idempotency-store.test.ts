import type { Queryable } from "@app/db";
import { fakeClock, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { IDEMPOTENCY_TTL_MS, IdempotencyStore } from "../../src/idempotency/idempotency-store.ts";
import { storedJson, storedJsonText } from "../../src/idempotency/stored-response.ts";

const LEASE_MS = 70_000;

/** A store of its own namespace (the file's tests share one database), on a fake clock. */
function storeOn(db: Queryable, namespace: string) {
  const clock = fakeClock();
  const store = new IdempotencyStore(db, { namespace, leaseMs: LEASE_MS, clock });
  return { clock, store };
}

const request = (key: string, fingerprint = "fp-1", attachment?: string) => ({
  scope: "acct_1",
  key,
  fingerprint,
  ...(attachment === undefined ? {} : { attachment }),
});

async function started(store: IdempotencyStore, key: string, fingerprint = "fp-1", attachment?: string) {
  const begun = await store.begin(request(key, fingerprint, attachment));
  if (begun.kind !== "started") throw new Error(`expected the key to start, got ${begun.kind}`);
  return begun.lease;
}

describe("the idempotency store", () => {
  test("a first request starts; its retries are in progress until it completes, then replay its response", async ({
    db,
  }) => {
    const { store } = storeOn(db, "test.transitions");
    const lease = await started(store, "k", "fp-1", "auth-1");
    expect(await store.begin(request("k"))).toMatchObject({
      kind: "in_progress",
      pending: { lease, attachment: "auth-1", pinned: false },
    });
    const response = storedJson(201, { id: "x" }, { "Cache-Control": "private" });
    expect(await store.complete(lease, response)).toBe(true);
    expect(await store.begin(request("k"))).toEqual({ kind: "replay", response, attachment: "auth-1" });
    // A completed key is not completed again.
    expect(await store.complete(lease, storedJson(200, { id: "y" }))).toBe(false);
  });

  test("the same key with another request is a mismatch, whether it is pending or done", async ({ db }) => {
    const { store } = storeOn(db, "test.mismatch");
    const lease = await started(store, "k");
    expect(await store.begin(request("k", "fp-2"))).toEqual({ kind: "mismatch" });
    await store.complete(lease, storedJson(200, {}));
    expect(await store.begin(request("k", "fp-2"))).toEqual({ kind: "mismatch" });
  });

  test("keys are per scope and per namespace", async ({ db }) => {
    const { store, clock } = storeOn(db, "test.scopes");
    const other = new IdempotencyStore(db, { namespace: "test.scopes-other", leaseMs: LEASE_MS, clock });
    await started(store, "k");
    expect((await store.begin({ scope: "acct_2", key: "k", fingerprint: "fp-9" })).kind).toBe("started");
    expect((await other.begin(request("k", "fp-9"))).kind).toBe("started");
  });

  test("a released key is free: the next request with it starts afresh", async ({ db }) => {
    const { store } = storeOn(db, "test.release");
    const lease = await started(store, "k");
    expect(await store.release(lease)).toBe(true);
    expect(await store.release(lease)).toBe(false);
    expect((await store.begin(request("k", "fp-other"))).kind).toBe("started");
  });

  test("a pending key is in progress within its lease and taken over after; the old holder can neither complete nor release it", async ({
    db,
  }) => {
    const { store, clock } = storeOn(db, "test.lease");
    const first = await started(store, "k");
    clock.advance(LEASE_MS - 1);
    expect((await store.begin(request("k"))).kind).toBe("in_progress");
    clock.advance(1);
    const second = await started(store, "k");
    expect(second.token).not.toBe(first.token);
    expect(await store.complete(first, storedJsonText(200, '{"old":true}'))).toBe(false);
    expect(await store.release(first)).toBe(false);
    expect(await store.pin(first)).toBe(false);
    expect((await store.begin(request("k"))).kind).toBe("in_progress");
    expect(await store.complete(second, storedJsonText(200, '{"new":true}'))).toBe(true);
    expect(await store.begin(request("k"))).toMatchObject({
      kind: "replay",
      response: { body: '{"new":true}' },
    });
  });

  test("a key past its lease may be taken over by another request: it is free, whatever came before", async ({
    db,
  }) => {
    const { store, clock } = storeOn(db, "test.lease-other");
    await started(store, "k", "fp-1", "auth-1");
    clock.advance(LEASE_MS);
    const begun = await store.begin(request("k", "fp-2", "auth-2"));
    expect(begun.kind).toBe("started");
    expect(await store.begin(request("k", "fp-2"))).toMatchObject({
      kind: "in_progress",
      pending: { attachment: "auth-2" },
    });
  });

  test("a pinned key is never taken over, however long; completing or releasing it frees it", async ({
    db,
  }) => {
    const { store, clock } = storeOn(db, "test.pin");
    const lease = await started(store, "k", "fp-1", "auth-1");
    expect(await store.pin(lease)).toBe(true);
    clock.advance(10 * IDEMPOTENCY_TTL_MS);
    expect(await store.begin(request("k"))).toMatchObject({
      kind: "in_progress",
      pending: { lease, pinned: true, attachment: "auth-1" },
    });
    // Recovery finishes it with the holder's lease, as read from the pending key.
    const [pending] = await store.pendingSince(clock.now());
    expect(pending).toMatchObject({ lease, pinned: true, attachment: "auth-1" });
    expect(await store.complete(pending?.lease ?? lease, storedJson(200, { late: true }))).toBe(true);
    expect((await store.begin(request("k"))).kind).toBe("replay");
  });

  test("a stored response answers for its time to live from completion, then the key is free again", async ({
    db,
  }) => {
    const { store, clock } = storeOn(db, "test.ttl");
    const lease = await started(store, "k");
    clock.advance(LEASE_MS / 2);
    await store.complete(lease, storedJson(200, { n: 1 }));
    clock.advance(IDEMPOTENCY_TTL_MS - 1);
    expect((await store.begin(request("k", "fp-2"))).kind).toBe("mismatch");
    expect((await store.begin(request("k"))).kind).toBe("replay");
    clock.advance(1);
    expect((await store.begin(request("k", "fp-2"))).kind).toBe("started");
  });

  test("replays the body byte for byte: key order, whitespace and escapes as first sent", async ({ db }) => {
    const { store } = storeOn(db, "test.bytes");
    const lease = await started(store, "k");
    const body = '{"fortune": "Soon.",\n  "charged":"0.003", "z":[1.0, "\\u0000", "\\ud800"], "a":{}}';
    const response = storedJsonText(200, body, { "PAYMENT-RESPONSE": "abc" });
    await store.complete(lease, response);
    const replay = await store.begin(request("k"));
    expect(replay.kind === "replay" && replay.response.body).toBe(body);
    expect(replay).toEqual({ kind: "replay", response, attachment: undefined });
  });

  test("of 20 concurrent begins with one key, exactly one starts", async ({ db }) => {
    const { store } = storeOn(db, "test.concurrent");
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => store.begin(request("k"))));
    expect(outcomes.filter((outcome) => outcome.kind === "started")).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.kind === "in_progress")).toHaveLength(19);
  });

  test("of 20 concurrent takeovers of a key past its lease, exactly one starts", async ({ db }) => {
    const { store, clock } = storeOn(db, "test.concurrent-takeover");
    await started(store, "k");
    clock.advance(LEASE_MS);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => store.begin(request("k"))));
    expect(outcomes.filter((outcome) => outcome.kind === "started")).toHaveLength(1);
  });

  test("lists pending keys older than a time, oldest first, for recovery", async ({ db }) => {
    const { store, clock } = storeOn(db, "test.pending");
    const old = await started(store, "old", "fp-1", "auth-old");
    clock.advance(60_000);
    const done = await started(store, "done");
    await store.complete(done, storedJson(200, {}));
    const cutoff = clock.now();
    clock.advance(1);
    await started(store, "young");
    expect(await store.pendingSince(cutoff)).toEqual([
      { lease: old, attachment: "auth-old", startedAt: new Date(cutoff.getTime() - 60_000), pinned: false },
    ]);
  });

  test("purges stored responses past their time to live and leases that ran out as long ago; pinned keys stay", async ({
    db,
  }) => {
    const { store, clock } = storeOn(db, "test.purge");
    await store.complete(await started(store, "done-old"), storedJson(200, {}));
    await started(store, "lapsed");
    await store.pin(await started(store, "pinned"));
    clock.advance(IDEMPOTENCY_TTL_MS + LEASE_MS);
    await store.complete(await started(store, "done-new"), storedJson(200, {}));
    expect(await store.purgeExpired()).toBe(2);
    const left = await db.query<{ idempotency_key: string }>(
      "SELECT idempotency_key FROM edge.idempotency_keys WHERE namespace = 'test.purge' ORDER BY idempotency_key",
    );
    expect(left.map((row) => row.idempotency_key)).toEqual(["done-new", "pinned"]);
  });

  test("refuses a namespace that is not lower-case and a lease that is not positive", ({ db }) => {
    expect(() => new IdempotencyStore(db, { namespace: "Gateway", leaseMs: 1 })).toThrow(RangeError);
    expect(() => new IdempotencyStore(db, { namespace: "gateway", leaseMs: 0 })).toThrow(RangeError);
  });
});

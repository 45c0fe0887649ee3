import type { Database } from "@app/db";
import { fakeClock, openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { type IdempotencyBegin, IdempotencyStore } from "../../src/idempotency/idempotency-store.ts";
import { storedJsonText } from "../../src/idempotency/stored-response.ts";

const LEASE_MS = 70_000;

/** Two instances of a service, each its own pool of connections to the test database, for `work`. */
async function withTwoInstances(db: Database, work: (one: Database, two: Database) => Promise<void>) {
  const one = await openSecondHandle(db);
  const two = await openSecondHandle(db);
  try {
    await work(one, two);
  } finally {
    await Promise.all([one.close(), two.close()]);
  }
}

const kinds = (outcomes: IdempotencyBegin[]) => outcomes.map((outcome) => outcome.kind).sort();

describe("two instances on PostgreSQL share one idempotency store", () => {
  test("40 concurrent begins of one key at two instances: exactly one starts, and the other instance replays its response", async ({
    db,
  }) => {
    await withTwoInstances(db, async (one, two) => {
      const clock = fakeClock();
      const options = { namespace: "test.instances", leaseMs: LEASE_MS, clock };
      const stores = [new IdempotencyStore(one, options), new IdempotencyStore(two, options)] as const;
      const request = { scope: "acct_1", key: "shared", fingerprint: "fp-1" };
      const outcomes = await Promise.all(
        Array.from({ length: 40 }, (_, n) => stores[n % 2 === 0 ? 0 : 1].begin(request)),
      );
      expect(kinds(outcomes).filter((kind) => kind === "started")).toHaveLength(1);
      expect(kinds(outcomes).filter((kind) => kind === "in_progress")).toHaveLength(39);
      const winner = outcomes.find((outcome) => outcome.kind === "started");
      if (winner?.kind !== "started") throw new Error("no request started");
      const body = '{"z": 1,  "a": 2}';
      expect(await stores[0].complete(winner.lease, storedJsonText(200, body))).toBe(true);
      const replayed = await stores[1].begin(request);
      expect(replayed.kind === "replay" && replayed.response.body).toBe(body);
    });
  });

  test("a key whose holder's lease ran out is taken over by exactly one of two instances racing for it", async ({
    db,
  }) => {
    await withTwoInstances(db, async (one, two) => {
      const clock = fakeClock();
      const options = { namespace: "test.takeover", leaseMs: LEASE_MS, clock };
      const stores = [new IdempotencyStore(one, options), new IdempotencyStore(two, options)] as const;
      const request = { scope: "acct_1", key: "crashed", fingerprint: "fp-1" };
      const dead = await stores[0].begin(request);
      clock.advance(LEASE_MS);
      const outcomes = await Promise.all(
        Array.from({ length: 40 }, (_, n) => stores[n % 2 === 0 ? 0 : 1].begin(request)),
      );
      expect(kinds(outcomes).filter((kind) => kind === "started")).toHaveLength(1);
      if (dead.kind !== "started") throw new Error("the first request did not start");
      expect(await stores[1].complete(dead.lease, storedJsonText(200, "{}"))).toBe(false);
    });
  });
});

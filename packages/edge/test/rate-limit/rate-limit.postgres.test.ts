import type { Database } from "@app/db";
import { fakeClock, openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { DatabaseFixedWindow } from "../../src/rate-limit/database-fixed-window.ts";
import { DatabaseTokenBucket } from "../../src/rate-limit/database-token-bucket.ts";
import type { RateLimiter } from "../../src/rate-limit/rate-limiter.ts";

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

/** `requests` takes of one subject, alternating between the two limiters, all in flight together. */
async function passed(limiters: [RateLimiter, RateLimiter], requests: number): Promise<number> {
  const decisions = await Promise.all(
    Array.from({ length: requests }, (_, n) => (n % 2 === 0 ? limiters[0] : limiters[1]).take("key_shared")),
  );
  return decisions.filter((decision) => decision.allowed).length;
}

describe("two instances on PostgreSQL share one limit exactly", () => {
  test("the fixed window: 60 parallel requests at two instances, 25 pass in each window", async ({ db }) => {
    await withTwoInstances(db, async (one, two) => {
      const clock = fakeClock("2026-06-15T06:00:00Z");
      const options = { namespace: "test.instances", rule: { limit: 25, windowSeconds: 60 }, clock };
      const limiters: [RateLimiter, RateLimiter] = [
        new DatabaseFixedWindow(one, options),
        new DatabaseFixedWindow(two, options),
      ];
      expect(await passed(limiters, 60)).toBe(25);
      clock.advance(60_000);
      expect(await passed(limiters, 60)).toBe(25);
    });
  });

  test("the token bucket (a lease of one token below 200 a minute): 25 pass, then what refilled", async ({
    db,
  }) => {
    await withTwoInstances(db, async (one, two) => {
      const clock = fakeClock();
      const options = { namespace: "test.instances", rule: { limit: 25, windowSeconds: 60 }, clock };
      const limiters: [RateLimiter, RateLimiter] = [
        new DatabaseTokenBucket(one, options),
        new DatabaseTokenBucket(two, options),
      ];
      expect(await passed(limiters, 60)).toBe(25);
      clock.advance(12_000); // 5 tokens back
      expect(await passed(limiters, 60)).toBe(5);
    });
  });
});

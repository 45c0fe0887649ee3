import type { Database } from "@app/db";
import { fakeClock, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { DatabaseTokenBucket, LEASE_TTL_MS, leaseSize } from "../../src/rate-limit/database-token-bucket.ts";
import type { RateLimiter } from "../../src/rate-limit/rate-limiter.ts";
import { bucketOf } from "../../src/rate-limit/token-bucket.ts";

/** `runs` a minute, with a burst of as many. */
const perMinute = (runs: number) => ({ limit: runs, windowSeconds: 60 });

/** The database, counting the statements sent to it. */
function counted(db: Database) {
  const counter = { statements: 0 };
  const wrapped: Database = {
    ...db,
    query: (sql, params) => {
      counter.statements += 1;
      return db.query(sql, params);
    },
  };
  return { db: wrapped, counter };
}

const allowed = async (limiter: RateLimiter, subject: string, runs: number) => {
  const decisions = await Promise.all(Array.from({ length: runs }, () => limiter.take(subject)));
  return decisions.filter((decision) => decision.allowed).length;
};

const bucketTokens = async (db: Database, namespace: string, subject: string) => {
  const [bucket] = await db.query<{ tokens: number }>(
    "SELECT tokens FROM edge.rate_buckets WHERE namespace = $1 AND subject = $2",
    [namespace, subject],
  );
  return bucket?.tokens;
};

describe("the token bucket on the database", () => {
  test("starts full, counts down, refuses with the wait for one token, and refills with time", async ({
    db,
  }) => {
    const clock = fakeClock();
    const limiter = new DatabaseTokenBucket(db, { namespace: "test.bucket", rule: perMinute(3), clock });
    expect(await limiter.take("key_1")).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 20 });
    expect(await limiter.take("key_1")).toEqual({ allowed: true, limit: 3, remaining: 1, resetSeconds: 40 });
    expect(await limiter.take("key_1")).toEqual({ allowed: true, limit: 3, remaining: 0, resetSeconds: 60 });
    expect(await limiter.take("key_1")).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      resetSeconds: 60,
      retryAfterSeconds: 20,
    });
    clock.advance(15_000);
    expect(await limiter.take("key_1")).toMatchObject({ allowed: false, retryAfterSeconds: 5 });
    clock.advance(5_000);
    expect(await limiter.take("key_1")).toEqual({ allowed: true, limit: 3, remaining: 0, resetSeconds: 60 });
    expect(await limiter.take("key_2")).toMatchObject({ allowed: true, remaining: 2 });
  });

  test("parallel requests at two limiters pass exactly the limit when the lease is one token", async ({
    db,
  }) => {
    const clock = fakeClock();
    const first = new DatabaseTokenBucket(db, { namespace: "test.parallel", rule: perMinute(9), clock });
    const second = new DatabaseTokenBucket(db, { namespace: "test.parallel", rule: perMinute(9), clock });
    const decisions = await Promise.all(
      Array.from({ length: 24 }, (_, n) => (n % 2 === 0 ? first : second).take("key_1")),
    );
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(9);
  });

  test("a take served from the lease answers at once, without a promise", async ({ db }) => {
    const limiter = new DatabaseTokenBucket(db, {
      namespace: "test.sync",
      rule: perMinute(300),
      clock: fakeClock(),
    });
    const first = limiter.take("key_1");
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ allowed: true, limit: 300, remaining: 299 });
    const second = limiter.take("key_1");
    expect(second).not.toBeInstanceOf(Promise);
    expect(second).toMatchObject({ allowed: true, limit: 300, remaining: 298 });
  });
});

describe("token-bucket leases", () => {
  test("are 1% of the burst, at least 1 and at most 100", () => {
    expect(leaseSize(bucketOf(perMinute(10)))).toBe(1);
    expect(leaseSize(bucketOf(perMinute(199)))).toBe(1);
    expect(leaseSize(bucketOf(perMinute(300)))).toBe(3);
    expect(leaseSize(bucketOf(perMinute(1_000_000)))).toBe(100);
  });

  test("take a lease in one statement, shared by concurrent runs, and never more than the bucket holds", async ({
    db,
  }) => {
    const clock = fakeClock();
    const { db: countedDb, counter } = counted(db);
    const options = { namespace: "test.lease", rule: perMinute(20_000), clock }; // a lease of 100 tokens
    const first = new DatabaseTokenBucket(countedDb, options);
    const second = new DatabaseTokenBucket(countedDb, options);
    expect(await allowed(first, "key_1", 150)).toBe(150);
    expect(counter.statements).toBe(2);
    // Two instances drain the bucket: together never more than its 20 000 tokens.
    let total = 150;
    for (let round = 0; round < 120; round += 1) {
      total += await allowed(first, "key_1", 100);
      total += await allowed(second, "key_1", 100);
    }
    expect(total).toBeLessThanOrEqual(20_000);
    expect(total).toBeGreaterThanOrEqual(20_000 - 2 * 99);
  });

  test("forfeit what is left after their second, so the bucket refills normally", async ({ db }) => {
    const clock = fakeClock();
    const limiter = new DatabaseTokenBucket(db, { namespace: "test.forfeit", rule: perMinute(300), clock });
    expect(await allowed(limiter, "key_1", 1)).toBe(1); // a lease of 3, 2 left
    clock.advance(LEASE_TTL_MS);
    expect(await bucketTokens(db, "test.forfeit", "key_1")).toBe(297);
    expect(await allowed(limiter, "key_1", 1)).toBe(1); // a fresh lease, from the database
    // 297 + 5 refilled in the second, capped at 300: the 2 forfeited tokens came back; minus 3.
    expect(await bucketTokens(db, "test.forfeit", "key_1")).toBeCloseTo(297, 6);
  });
});

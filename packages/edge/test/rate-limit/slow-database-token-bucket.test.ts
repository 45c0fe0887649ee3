import type { Database, Queryable, QueryOptions } from "@app/db";
import { type FakeClock, fakeClock, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { DatabaseTokenBucket, LEASE_TTL_MS } from "../../src/rate-limit/database-token-bucket.ts";

/** Longer than a lease lives: a lease timed from before its statement is dead when it arrives. */
const STATEMENT_MS = LEASE_TTL_MS + 100;

/** Statements after which the limiter is looping, not limiting (the test then fails at once). */
const RUNAWAY = 50;

/**
 * The test database behind a slow link: each statement takes {@link STATEMENT_MS} of the fake
 * clock's time (it moves when the rows come back), and is counted.
 */
function slowDatabase(db: Database, clock: FakeClock) {
  const sent = { statements: 0 };
  const slow: Queryable = {
    async query<Row>(sql: string, params?: readonly unknown[], options?: QueryOptions) {
      sent.statements += 1;
      if (sent.statements > RUNAWAY) throw new Error(`still taking after ${RUNAWAY} statements`);
      const rows = await db.query<Row>(sql, params, options);
      clock.advance(STATEMENT_MS);
      return rows;
    },
    exec: (sql) => db.exec(sql),
  };
  return { slow, sent };
}

const bucketTokens = async (db: Database, namespace: string) => {
  const [bucket] = await db.query<{ tokens: number }>(
    "SELECT tokens FROM edge.rate_buckets WHERE namespace = $1 AND subject = 'key_1'",
    [namespace],
  );
  return bucket?.tokens;
};

describe("a token bucket whose database answers slower than a lease lives", () => {
  test("at 10 a minute, a first request passes on one statement that takes one token", async ({ db }) => {
    const clock = fakeClock();
    const { slow, sent } = slowDatabase(db, clock);
    const limiter = new DatabaseTokenBucket(slow, {
      namespace: "test.slow10",
      rule: { limit: 10, windowSeconds: 60 },
      clock,
    });
    expect(await limiter.take("key_1")).toMatchObject({ allowed: true, remaining: 9 });
    expect(sent.statements).toBe(1);
    expect(await bucketTokens(db, "test.slow10")).toBe(9);
  });

  test("at 300 a minute (leases of 3), a request passes on one statement, and its lease serves the next two at once", async ({
    db,
  }) => {
    const clock = fakeClock();
    const { slow, sent } = slowDatabase(db, clock);
    const limiter = new DatabaseTokenBucket(slow, {
      namespace: "test.slow300",
      rule: { limit: 300, windowSeconds: 60 },
      clock,
    });
    expect(await limiter.take("key_1")).toMatchObject({ allowed: true });
    expect(sent.statements).toBe(1);
    expect(await bucketTokens(db, "test.slow300")).toBe(297);
    for (const _ of [1, 2]) {
      const fromLease = limiter.take("key_1");
      expect(fromLease).not.toBeInstanceOf(Promise);
      expect(fromLease).toMatchObject({ allowed: true });
    }
    expect(await limiter.take("key_1")).toMatchObject({ allowed: true });
    expect(sent.statements).toBe(2);
  });

  test("concurrent requests each pass, on one statement per lease, never more statements than requests", async ({
    db,
  }) => {
    const clock = fakeClock();
    const { slow, sent } = slowDatabase(db, clock);
    const limiter = new DatabaseTokenBucket(slow, {
      namespace: "test.slowburst",
      rule: { limit: 300, windowSeconds: 60 },
      clock,
    });
    const decisions = await Promise.all(Array.from({ length: 10 }, () => limiter.take("key_1")));
    expect(decisions.every((decision) => decision.allowed)).toBe(true);
    expect(sent.statements).toBe(4); // leases of 3: 3 + 3 + 3 + 1
  });

  test("an emptied bucket refuses on its statement, and a refusal is shared by the requests that waited for it", async ({
    db,
  }) => {
    const clock = fakeClock();
    const { slow, sent } = slowDatabase(db, clock);
    const limiter = new DatabaseTokenBucket(slow, {
      namespace: "test.slowempty",
      rule: { limit: 2, windowSeconds: 60 },
      clock,
    });
    const decisions = await Promise.all(Array.from({ length: 6 }, () => limiter.take("key_1")));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(2);
    // Two takes of one token each; then one take that finds the bucket empty, and its read.
    expect(sent.statements).toBe(4);
  });
});

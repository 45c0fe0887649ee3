import type { Clock } from "@app/core";
import type { Database } from "@app/db";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { perMinute } from "../../src/domain/token-bucket.ts";
import { LEASE_TTL_MS, leaseSize, RateLimiter } from "../../src/store/rate-buckets.ts";
import { fakeClock, openAccount } from "../support/harness.ts";

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

const allowed = async (limiter: RateLimiter, keyId: string, runs: number) => {
  const decisions = await Promise.all(Array.from({ length: runs }, () => limiter.take(keyId)));
  return decisions.filter((decision) => decision.allowed).length;
};

describe("rate-limit leases", () => {
  test("are 1% of the burst, at least 1 and at most 100", () => {
    expect(leaseSize(perMinute(10))).toBe(1);
    expect(leaseSize(perMinute(199))).toBe(1);
    expect(leaseSize(perMinute(300))).toBe(3);
    expect(leaseSize(perMinute(1_000_000))).toBe(100);
  });

  test("take a lease in one statement, shared by concurrent runs, and never more than the bucket holds", async ({
    db,
  }) => {
    const clock: Clock = fakeClock();
    const { db: countedDb, counter } = counted(db);
    const caller = await openAccount(db);
    const config = perMinute(20_000); // a lease of 100 tokens
    const first = new RateLimiter(countedDb, config, clock);
    const second = new RateLimiter(countedDb, config, clock);
    expect(await allowed(first, caller.keyId, 150)).toBe(150);
    expect(counter.statements).toBe(2);
    // Two instances drain the bucket: together never more than its 20 000 tokens.
    let total = 150;
    for (let round = 0; round < 120; round += 1) {
      total += await allowed(first, caller.keyId, 100);
      total += await allowed(second, caller.keyId, 100);
    }
    expect(total).toBeLessThanOrEqual(20_000);
    expect(total).toBeGreaterThanOrEqual(20_000 - 2 * 99);
  });

  test("forfeit what is left after their second, so the bucket refills normally", async ({ db }) => {
    const clock = fakeClock();
    const caller = await openAccount(db);
    const limiter = new RateLimiter(db, perMinute(300), clock);
    expect(await allowed(limiter, caller.keyId, 1)).toBe(1); // a lease of 3, 2 left
    clock.advance(LEASE_TTL_MS);
    const [bucket] = await db.query<{ tokens: number }>(
      "SELECT tokens FROM gateway.rate_buckets WHERE key_id = $1",
      [caller.keyId],
    );
    expect(bucket?.tokens).toBe(297);
    expect(await allowed(limiter, caller.keyId, 1)).toBe(1); // a fresh lease, from the database
    const [after] = await db.query<{ tokens: number }>(
      "SELECT tokens FROM gateway.rate_buckets WHERE key_id = $1",
      [caller.keyId],
    );
    // 297 + 5 refilled in the second, capped at 300: the 2 forfeited tokens came back; minus 3.
    expect(after?.tokens).toBeCloseTo(297, 6);
  });
});

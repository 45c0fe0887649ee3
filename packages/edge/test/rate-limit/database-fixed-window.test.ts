import { fakeClock, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { DatabaseFixedWindow } from "../../src/rate-limit/database-fixed-window.ts";

const RULE = { limit: 3, windowSeconds: 60 };

describe("the fixed window on the database", () => {
  test("counts a subject's requests down to 0 left, then refuses until the window ends", async ({ db }) => {
    const clock = fakeClock("2026-06-15T06:00:20Z");
    const limiter = new DatabaseFixedWindow(db, { namespace: "test.decisions", rule: RULE, clock });
    expect(await limiter.take("key_1")).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 40 });
    expect(await limiter.take("key_1")).toEqual({ allowed: true, limit: 3, remaining: 1, resetSeconds: 40 });
    clock.advance(10_000);
    expect(await limiter.take("key_1")).toEqual({ allowed: true, limit: 3, remaining: 0, resetSeconds: 30 });
    expect(await limiter.take("key_1")).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      resetSeconds: 30,
      retryAfterSeconds: 30,
    });
  });

  test("a new window starts whole, and the subject's earlier windows are deleted", async ({ db }) => {
    const clock = fakeClock("2026-06-15T06:00:59Z");
    const limiter = new DatabaseFixedWindow(db, { namespace: "test.rollover", rule: RULE, clock });
    for (let n = 0; n < 3; n += 1) await limiter.take("key_1");
    expect(await limiter.take("key_1")).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    clock.set("2026-06-15T06:01:00Z");
    expect(await limiter.take("key_1")).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
    const windows = await db.query<{ window_start: Date }>(
      "SELECT window_start FROM edge.rate_limit_windows WHERE namespace = $1 AND subject = $2",
      ["test.rollover", "key_1"],
    );
    expect(windows.map((row) => row.window_start.toISOString())).toEqual(["2026-06-15T06:01:00.000Z"]);
  });

  test("subjects and namespaces are counted apart; two limiters of one namespace share the count", async ({
    db,
  }) => {
    const clock = fakeClock("2026-06-15T06:00:00Z");
    const reads = new DatabaseFixedWindow(db, { namespace: "test.read", rule: RULE, clock });
    const readsElsewhere = new DatabaseFixedWindow(db, { namespace: "test.read", rule: RULE, clock });
    const bookings = new DatabaseFixedWindow(db, { namespace: "test.booking", rule: RULE, clock });
    for (const limiter of [reads, readsElsewhere, reads])
      expect((await limiter.take("key_1")).allowed).toBe(true);
    expect((await readsElsewhere.take("key_1")).allowed).toBe(false);
    expect(await reads.take("key_2")).toMatchObject({ allowed: true, remaining: 2 });
    expect(await bookings.take("key_1")).toMatchObject({ allowed: true, remaining: 2 });
  });

  test("parallel requests pass exactly the limit, each told a different remainder", async ({ db }) => {
    const clock = fakeClock("2026-06-15T06:00:00Z");
    const limiter = new DatabaseFixedWindow(db, {
      namespace: "test.parallel",
      rule: { limit: 7, windowSeconds: 60 },
      clock,
    });
    const decisions = await Promise.all(Array.from({ length: 20 }, () => limiter.take("key_1")));
    const allowed = decisions.filter((decision) => decision.allowed);
    expect(allowed).toHaveLength(7);
    expect(allowed.map((decision) => decision.remaining).sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(decisions.filter((decision) => !decision.allowed)).toHaveLength(13);
  });

  test("a rule or a namespace that cannot work is refused when the limiter is made", ({ db }) => {
    expect(
      () => new DatabaseFixedWindow(db, { namespace: "test", rule: { limit: 0, windowSeconds: 60 } }),
    ).toThrow(RangeError);
    expect(
      () => new DatabaseFixedWindow(db, { namespace: "test", rule: { limit: 1.5, windowSeconds: 60 } }),
    ).toThrow(RangeError);
    expect(
      () => new DatabaseFixedWindow(db, { namespace: "test", rule: { limit: 1, windowSeconds: 0 } }),
    ).toThrow(RangeError);
    expect(() => new DatabaseFixedWindow(db, { namespace: "", rule: RULE })).toThrow(RangeError);
    expect(() => new DatabaseFixedWindow(db, { namespace: "Shop Read", rule: RULE })).toThrow(RangeError);
  });
});

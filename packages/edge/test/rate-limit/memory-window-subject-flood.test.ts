import { fakeClock } from "@app/testkit";
import { describe, expect, test } from "vitest";
import { MemoryFixedWindow } from "../../src/rate-limit/memory-fixed-window.ts";

const RULE = { limit: 3, windowSeconds: 60 };

/** One take each for `count` subjects never seen before (`prefix1`, `prefix2`, …). */
const takeDistinct = (limiter: MemoryFixedWindow, prefix: string, count: number) => {
  for (let n = 1; n <= count; n += 1) limiter.take(`${prefix}${n}`);
};

describe("a flood of distinct subjects at the fixed window in memory", () => {
  test("windows that have ended are forgotten as soon as a newer one opens", () => {
    const clock = fakeClock("2026-06-15T06:00:00Z");
    const limiter = new MemoryFixedWindow(RULE, clock);
    takeDistinct(limiter, "early", 100);
    clock.advance(30_000);
    takeDistinct(limiter, "later", 10);
    clock.advance(30_000); // the early windows have ended, the later ones have not
    limiter.take("newcomer");
    expect(limiter.size).toBe(11);
    expect(limiter.take("early1")).toMatchObject({ allowed: true, remaining: 2 });
  });

  test("a window opened again goes behind the windows opened before it", () => {
    const clock = fakeClock("2026-06-15T06:00:00Z");
    const limiter = new MemoryFixedWindow(RULE, clock);
    limiter.take("first");
    clock.advance(10_000);
    limiter.take("second");
    clock.advance(50_000);
    limiter.take("first"); // its window ended: a new one, from now
    clock.advance(10_000); // the second's window has ended, the first's new one has not
    limiter.take("newcomer");
    expect(limiter.size).toBe(2);
    expect(limiter.take("first")).toMatchObject({ allowed: true, remaining: 1 }); // its second in the new window
  });

  test("holds at most its bound of subjects inside one window, forgetting the oldest first", () => {
    const clock = fakeClock("2026-06-15T06:00:00Z");
    const limiter = new MemoryFixedWindow(RULE, clock, { maxSubjects: 1_000 });
    takeDistinct(limiter, "flood", 5_000);
    expect(limiter.size).toBe(1_000);
    // The newest subjects are still counted (a second take); the oldest start afresh (a first).
    expect(limiter.take("flood5000")).toMatchObject({ allowed: true, remaining: 1 });
    expect(limiter.take("flood1")).toMatchObject({ allowed: true, remaining: 2 });
    expect(limiter.size).toBe(1_000);
  });

  test("a bound that cannot work is refused when the limiter is made", () => {
    expect(() => new MemoryFixedWindow(RULE, fakeClock(), { maxSubjects: 0 })).toThrow(RangeError);
    expect(() => new MemoryFixedWindow(RULE, fakeClock(), { maxSubjects: 1.5 })).toThrow(RangeError);
  });
});

import { fakeClock } from "@app/testkit";
import { describe, expect, test } from "vitest";
import { MemoryFixedWindow } from "../../src/rate-limit/memory-fixed-window.ts";

const RULE = { limit: 3, windowSeconds: 60 };

describe("the fixed window in memory", () => {
  test("answers at once: the limit counted down, then refusals until the window ends", () => {
    const clock = fakeClock("2026-06-15T06:00:20Z");
    const limiter = new MemoryFixedWindow(RULE, clock);
    expect(limiter.take("token_1")).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
    clock.advance(30_000);
    expect(limiter.take("token_1")).toEqual({ allowed: true, limit: 3, remaining: 1, resetSeconds: 30 });
    expect(limiter.take("token_1")).toEqual({ allowed: true, limit: 3, remaining: 0, resetSeconds: 30 });
    expect(limiter.take("token_1")).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      resetSeconds: 30,
      retryAfterSeconds: 30,
    });
  });

  test("a subject's window opens at its first request, and the next at its first request after", () => {
    const clock = fakeClock("2026-06-15T06:00:50Z");
    const limiter = new MemoryFixedWindow(RULE, clock);
    for (let n = 0; n < 3; n += 1) limiter.take("token_1");
    clock.set("2026-06-15T06:01:49.500Z"); // past the minute, but not 60 s after the first request
    expect(limiter.take("token_1")).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    clock.set("2026-06-15T06:01:50Z");
    expect(limiter.take("token_1")).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
  });

  test("subjects are counted apart, parallel takes pass exactly the limit, and clear forgets every window", async () => {
    const limiter = new MemoryFixedWindow(RULE, fakeClock());
    const decisions = await Promise.all(Array.from({ length: 10 }, async () => limiter.take("token_1")));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(3);
    expect(limiter.take("token_2").allowed).toBe(true);
    limiter.clear();
    expect(limiter.take("token_1")).toMatchObject({ allowed: true, remaining: 2 });
  });

  test("a rule that cannot work is refused when the limiter is made", () => {
    expect(() => new MemoryFixedWindow({ limit: 0, windowSeconds: 60 })).toThrow(RangeError);
    expect(() => new MemoryFixedWindow({ limit: 1, windowSeconds: -1 })).toThrow(RangeError);
  });
});

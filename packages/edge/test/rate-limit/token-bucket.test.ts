import { describe, expect, test } from "vitest";
import {
  type BucketState,
  bucketAllowed,
  bucketOf,
  bucketRefused,
  refill,
  secondsUntilFull,
  takeToken,
} from "../../src/rate-limit/token-bucket.ts";

/** `runs` a minute, with a burst of as many. */
const perMinute = (runs: number) => bucketOf({ limit: runs, windowSeconds: 60 });

describe("token bucket", () => {
  test("a rule is a burst of its limit refilled evenly over its window", () => {
    expect(bucketOf({ limit: 300, windowSeconds: 60 })).toEqual({ capacity: 300, refillPerSecond: 5 });
    expect(bucketOf({ limit: 30, windowSeconds: 600 })).toEqual({ capacity: 30, refillPerSecond: 0.05 });
  });

  test("a new bucket is full: the burst is the per-minute allowance", () => {
    const config = perMinute(300);
    let state: BucketState | undefined;
    for (let i = 0; i < 300; i += 1) {
      const decision = takeToken(state, 0, config);
      expect(decision.allowed, `run ${i}`).toBe(true);
      state = decision.state;
    }
    expect(takeToken(state, 0, config).allowed).toBe(false);
  });

  test("an empty bucket says how many whole seconds until the next token", () => {
    const config = perMinute(60);
    const empty = { tokens: 0, refilledAtMs: 0 };
    expect(takeToken(empty, 0, config)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(takeToken(empty, 0, perMinute(3))).toMatchObject({ allowed: false, retryAfterSeconds: 20 });
    expect(takeToken({ tokens: 0.5, refilledAtMs: 0 }, 0, perMinute(1))).toMatchObject({
      retryAfterSeconds: 30,
    });
    expect(takeToken({ tokens: 0.999, refilledAtMs: 0 }, 0, perMinute(6000))).toMatchObject({
      retryAfterSeconds: 1,
    });
  });

  test("tokens come back with time, never beyond the capacity", () => {
    const config = perMinute(60);
    expect(refill({ tokens: 0, refilledAtMs: 0 }, 30_000, config).tokens).toBe(30);
    expect(refill({ tokens: 0, refilledAtMs: 0 }, 3_600_000, config).tokens).toBe(60);
    expect(takeToken({ tokens: 0, refilledAtMs: 0 }, 1_000, config)).toMatchObject({
      allowed: true,
      state: { tokens: 0 },
    });
  });

  test("a clock that goes backwards refills nothing", () => {
    const state = refill({ tokens: 2, refilledAtMs: 10_000 }, 5_000, perMinute(60));
    expect(state).toEqual({ tokens: 2, refilledAtMs: 10_000 });
  });

  test("an allowed run tells the whole tokens left and the seconds until the bucket is full", () => {
    const config = perMinute(60); // a token a second
    expect(secondsUntilFull(60, config)).toBe(0);
    expect(secondsUntilFull(59.5, config)).toBe(1);
    expect(bucketAllowed(57.5, config)).toEqual({ allowed: true, limit: 60, remaining: 57, resetSeconds: 3 });
    // What a lease holds on top of the bucket never shows as more than the limit.
    expect(bucketAllowed(61, config)).toEqual({ allowed: true, limit: 60, remaining: 60, resetSeconds: 0 });
  });

  test("a refused run waits for its next token, and the reset for the whole bucket", () => {
    const config = perMinute(3); // a token every 20 s
    expect(bucketRefused({ tokens: 0.5, refilledAtMs: 0 }, 0, config)).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      retryAfterSeconds: 10,
      resetSeconds: 50,
    });
    // Refilled since the statement that found it empty: a retry can pass at once.
    expect(bucketRefused({ tokens: 0.5, refilledAtMs: 0 }, 10_000, config)).toMatchObject({
      allowed: false,
      retryAfterSeconds: 1,
      resetSeconds: 40,
    });
  });
});

import { describe, expect, test } from "vitest";
import { type BucketState, perMinute, refill, takeToken } from "../../src/domain/token-bucket.ts";

describe("token bucket", () => {
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
});

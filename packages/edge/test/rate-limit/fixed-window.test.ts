import { describe, expect, test } from "vitest";
import {
  fixedWindowDecision,
  secondsUntilWindowEnds,
  windowStartOf,
} from "../../src/rate-limit/fixed-window.ts";

describe("fixed-window arithmetic", () => {
  test("windows align to the minute and Retry-After counts the seconds left", () => {
    const limit = { limit: 120, windowSeconds: 60 };
    const now = new Date("2026-06-15T06:00:42.500Z");
    const start = windowStartOf(now, limit);
    expect(start.toISOString()).toBe("2026-06-15T06:00:00.000Z");
    expect(secondsUntilWindowEnds(start, limit, now)).toBe(18);
  });

  test("windows longer than a minute align to the epoch too, and a window's last instant still waits a second", () => {
    const rule = { limit: 30, windowSeconds: 600 };
    const now = new Date("2026-06-15T06:05:00Z");
    const start = windowStartOf(now, rule);
    expect(start.toISOString()).toBe("2026-06-15T06:00:00.000Z");
    expect(secondsUntilWindowEnds(start, rule, now)).toBe(300);
    expect(secondsUntilWindowEnds(start, rule, new Date("2026-06-15T06:09:59.999Z"))).toBe(1);
  });

  test("a counted request leaves the limit less its hits; a refused one waits for the window's end", () => {
    const rule = { limit: 3, windowSeconds: 60 };
    const now = new Date("2026-06-15T06:00:20Z");
    const start = windowStartOf(now, rule);
    expect(fixedWindowDecision(1, rule, start, now)).toEqual({
      allowed: true,
      limit: 3,
      remaining: 2,
      resetSeconds: 40,
    });
    expect(fixedWindowDecision(3, rule, start, now)).toEqual({
      allowed: true,
      limit: 3,
      remaining: 0,
      resetSeconds: 40,
    });
    expect(fixedWindowDecision(undefined, rule, start, now)).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      resetSeconds: 40,
      retryAfterSeconds: 40,
    });
  });
});

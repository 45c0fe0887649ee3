import type { RateDecision, RateRule } from "./rate-limiter.ts";

/** The start of the window `now` falls in; windows are aligned to the Unix epoch. */
export function windowStartOf(now: Date, rule: RateRule): Date {
  const windowMs = rule.windowSeconds * 1000;
  return new Date(Math.floor(now.getTime() / windowMs) * windowMs);
}

/** Whole seconds from `now` until the window starting at `windowStart` ends (at least 1). */
export function secondsUntilWindowEnds(windowStart: Date, rule: RateRule, now: Date): number {
  const endsAt = windowStart.getTime() + rule.windowSeconds * 1000;
  return Math.max(1, Math.ceil((endsAt - now.getTime()) / 1000));
}

/**
 * The decision on one request in the window starting at `windowStart`: `hits` is the window's
 * count with this request in it, or `undefined` when the window was full and it was not counted
 * (refused until the window ends).
 */
export function fixedWindowDecision(
  hits: number | undefined,
  rule: RateRule,
  windowStart: Date,
  now: Date,
): RateDecision {
  const resetSeconds = secondsUntilWindowEnds(windowStart, rule, now);
  if (hits === undefined) {
    return { allowed: false, limit: rule.limit, remaining: 0, resetSeconds, retryAfterSeconds: resetSeconds };
  }
  return { allowed: true, limit: rule.limit, remaining: Math.max(0, rule.limit - hits), resetSeconds };
}

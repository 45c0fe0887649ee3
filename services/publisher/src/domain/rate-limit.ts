/** A fixed-window limit: at most `limit` requests per key in each window of `windowSeconds`. */
export type RateLimit = { limit: number; windowSeconds: number };

/** The start of the window `now` falls in; windows are aligned to the Unix epoch. */
export function windowStartOf(now: Date, limit: RateLimit): Date {
  const windowMs = limit.windowSeconds * 1000;
  return new Date(Math.floor(now.getTime() / windowMs) * windowMs);
}

/** Whole seconds from `now` until the window starting at `windowStart` ends (at least 1). */
export function secondsUntilWindowEnds(windowStart: Date, limit: RateLimit, now: Date): number {
  const endsAt = windowStart.getTime() + limit.windowSeconds * 1000;
  return Math.max(1, Math.ceil((endsAt - now.getTime()) / 1000));
}

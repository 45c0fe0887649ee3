/** The answer of a rate limiter for one call. */
export type RateDecision = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the window resets, in whole seconds from now (at least 1). */
  retryAfterSeconds: number;
  resetAt: Date;
};

/** Fixed-window counters per key, in memory (the real platforms' limits are per token, client or account). */
export class RateLimiter {
  private windows = new Map<string, { startedAt: number; used: number }>();

  /** Counts one call for `key` against `limit` calls per `windowMs`. */
  take(key: string, limit: number, windowMs: number, now: Date): RateDecision {
    const at = now.getTime();
    let window = this.windows.get(key);
    if (!window || at - window.startedAt >= windowMs) {
      window = { startedAt: at, used: 0 };
      this.windows.set(key, window);
    }
    const resetAtMs = window.startedAt + windowMs;
    const retryAfterSeconds = Math.max(1, Math.ceil((resetAtMs - at) / 1000));
    if (window.used >= limit) {
      return { allowed: false, limit, remaining: 0, retryAfterSeconds, resetAt: new Date(resetAtMs) };
    }
    window.used += 1;
    return {
      allowed: true,
      limit,
      remaining: limit - window.used,
      retryAfterSeconds,
      resetAt: new Date(resetAtMs),
    };
  }

  clear(): void {
    this.windows.clear();
  }
}

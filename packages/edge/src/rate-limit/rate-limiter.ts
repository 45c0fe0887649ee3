/**
 * How many requests a subject (a key, an account, an address) may make: `limit` per
 * `windowSeconds`. A token bucket reads it as a burst of `limit` refilled evenly over the window.
 */
export type RateRule = { limit: number; windowSeconds: number };

/**
 * One limiter's answer for one request. `remaining` is what is left after this request;
 * `resetSeconds` is when the subject's allowance is whole again (the `RateLimit-Reset` header);
 * `retryAfterSeconds` (refusals only, at least 1) when a retry can pass.
 */
export type RateDecision =
  | { allowed: true; limit: number; remaining: number; resetSeconds: number }
  | { allowed: false; limit: number; remaining: 0; resetSeconds: number; retryAfterSeconds: number };

/**
 * Counts a request of `subject` against a rule. Implementations: `DatabaseFixedWindow` and
 * `DatabaseTokenBucket` (on the database, holding across instances), `MemoryFixedWindow` (one
 * process).
 */
export interface RateLimiter {
  /** The rule this limiter applies (for a 429's message and details). */
  readonly rule: RateRule;
  /**
   * Counts one request of `subject` now, or refuses it. Answers synchronously where it can (the
   * in-memory window always, the token bucket from a lease it holds): callers `await` it, or use
   * an implementation's narrower type where they must decide synchronously (the sandbox's twins
   * count inside a streaming parser's callback).
   */
  take(subject: string): RateDecision | Promise<RateDecision>;
}

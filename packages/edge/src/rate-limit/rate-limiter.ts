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
 * Counts a request of `subject` against a rule. Implementations: a fixed window and a token
 * bucket on the database (holding across instances), a fixed window in memory (one process).
 */
export interface RateLimiter {
  take(subject: string): Promise<RateDecision>;
}

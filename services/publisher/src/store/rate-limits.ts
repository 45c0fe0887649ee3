import type { Clock } from "@app/core";
import type { Queryable } from "@app/db";
import { type RateLimit, secondsUntilWindowEnds, windowStartOf } from "../domain/rate-limit.ts";

export type RateDecision =
  | { allowed: true }
  | { allowed: false; retryAfterSeconds: number; limit: number; windowSeconds: number };

/**
 * Per-key fixed-window request counters in the database, so that every instance shares them.
 * One statement counts a request: it inserts the window's row or adds one to it unless the window
 * is full, so concurrent requests at any instances never pass the limit together.
 */
export class RateLimiter {
  constructor(
    private readonly db: Queryable,
    private readonly limit: RateLimit,
    private readonly clock: Clock,
  ) {}

  /** Counts one request of the key now, or refuses it with the seconds until the window ends. */
  async take(keyId: string): Promise<RateDecision> {
    const now = this.clock.now();
    const windowStart = windowStartOf(now, this.limit);
    const rows = await this.db.query<{ hits: number }>(
      `INSERT INTO publisher.rate_limit_windows AS w (key_id, window_start, hits) VALUES ($1, $2, 1)
       ON CONFLICT (key_id, window_start) DO UPDATE SET hits = w.hits + 1 WHERE w.hits < $3
       RETURNING hits`,
      [keyId, windowStart, this.limit.limit],
    );
    const counted = rows[0];
    if (!counted) {
      return {
        allowed: false,
        retryAfterSeconds: secondsUntilWindowEnds(windowStart, this.limit, now),
        ...this.limit,
      };
    }
    if (counted.hits === 1) {
      await this.db.query(
        "DELETE FROM publisher.rate_limit_windows WHERE key_id = $1 AND window_start < $2",
        [keyId, windowStart],
      );
    }
    return { allowed: true };
  }
}

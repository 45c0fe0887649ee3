import type { Clock } from "@app/core";
import type { Queryable } from "@app/db";
import {
  type LimitedAction,
  type RateLimits,
  secondsUntilWindowEnds,
  windowStartOf,
} from "../domain/rate-limit.ts";

export type RateDecision =
  | { allowed: true }
  | { allowed: false; retryAfterSeconds: number; limit: number; windowSeconds: number };

/**
 * Per-key fixed-window counters kept in the database, so every instance on it shares them.
 * One statement counts a request: it inserts the window's row or adds one to it unless the
 * window is full, so concurrent requests at any instances never pass the limit together.
 */
export class RateLimiter {
  constructor(
    private readonly db: Queryable,
    private readonly limits: RateLimits,
    private readonly clock: Clock,
  ) {}

  /** Counts one `action` of the key now, or refuses it with the seconds until the window ends. */
  async take(keyId: string, action: LimitedAction): Promise<RateDecision> {
    const limit = this.limits[action];
    const now = this.clock.now();
    const windowStart = windowStartOf(now, limit);
    const rows = await this.db.query<{ hits: number }>(
      `INSERT INTO shop.rate_limit_windows AS w (key_id, action, window_start, hits) VALUES ($1, $2, $3, 1)
       ON CONFLICT (key_id, action, window_start) DO UPDATE SET hits = w.hits + 1 WHERE w.hits < $4
       RETURNING hits`,
      [keyId, action, windowStart, limit.limit],
    );
    const counted = rows[0];
    if (!counted) {
      return {
        allowed: false,
        retryAfterSeconds: secondsUntilWindowEnds(windowStart, limit, now),
        limit: limit.limit,
        windowSeconds: limit.windowSeconds,
      };
    }
    if (counted.hits === 1) await this.forgetEarlierWindows(keyId, action, windowStart);
    return { allowed: true };
  }

  /** A new window began: the key's earlier windows of this action are of no further use. */
  private async forgetEarlierWindows(keyId: string, action: LimitedAction, windowStart: Date): Promise<void> {
    await this.db.query(
      "DELETE FROM shop.rate_limit_windows WHERE key_id = $1 AND action = $2 AND window_start < $3",
      [keyId, action, windowStart],
    );
  }
}

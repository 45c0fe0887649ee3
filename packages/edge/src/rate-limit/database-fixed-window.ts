import type { Clock } from "@app/core";
import type { Queryable } from "@app/db";
import { fixedWindowDecision, windowStartOf } from "./fixed-window.ts";
import { checkedOptions, type DatabaseLimiterOptions } from "./limiter-options.ts";
import type { RateDecision, RateLimiter, RateRule } from "./rate-limiter.ts";

const COUNT = `INSERT INTO edge.rate_limit_windows AS w (namespace, subject, window_start, hits)
  VALUES ($1::text, $2::text, $3::timestamptz, 1)
  ON CONFLICT (namespace, subject, window_start) DO UPDATE SET hits = w.hits + 1 WHERE w.hits < $4::int
  RETURNING hits`;

const FORGET_EARLIER = `DELETE FROM edge.rate_limit_windows
  WHERE namespace = $1 AND subject = $2 AND window_start < $3`;

/**
 * Fixed windows aligned to the epoch, counted in the database so every instance on it shares
 * them: at most `rule.limit` requests of a subject in each window of `rule.windowSeconds`.
 *
 * One statement counts a request: it inserts the window's row or adds one to it unless the window
 * is full, and `INSERT … ON CONFLICT DO UPDATE` locks the row, so concurrent requests at any
 * instances never pass the limit together. The first request of a window also deletes the
 * subject's earlier windows.
 */
export class DatabaseFixedWindow implements RateLimiter {
  readonly rule: RateRule;
  private readonly namespace: string;
  private readonly clock: Clock;

  constructor(
    private readonly db: Queryable,
    options: DatabaseLimiterOptions,
  ) {
    ({ namespace: this.namespace, rule: this.rule, clock: this.clock } = checkedOptions(options));
  }

  /** Counts one request of `subject` now, or refuses it until its window ends. */
  async take(subject: string): Promise<RateDecision> {
    const now = this.clock.now();
    const windowStart = windowStartOf(now, this.rule);
    const [counted] = await this.db.query<{ hits: number }>(
      COUNT,
      [this.namespace, subject, windowStart, this.rule.limit],
      { prepareAs: "edge_rate_window_count" },
    );
    if (counted?.hits === 1) {
      await this.db.query(FORGET_EARLIER, [this.namespace, subject, windowStart]);
    }
    return fixedWindowDecision(counted?.hits, this.rule, windowStart, now);
  }
}

import type { Clock } from "@app/core";
import type { Queryable } from "@app/db";
import { type BucketConfig, takeToken } from "../domain/token-bucket.ts";

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * The per-key token buckets, kept in the database so that every instance on it shares them.
 * One statement takes a token: it creates the key's bucket full (minus the token) or refills it
 * for the time elapsed and takes one, unless less than one is left. `INSERT … ON CONFLICT DO
 * UPDATE` locks the row, so concurrent runs at any instances never take more than there is. The
 * arithmetic is the pure {@link takeToken}'s; a refusal reads the bucket and lets it say how long
 * to wait.
 */
export class RateLimiter {
  constructor(
    private readonly db: Queryable,
    private readonly config: BucketConfig,
    private readonly clock: Clock,
  ) {}

  async take(keyId: string): Promise<RateDecision> {
    const now = this.clock.now();
    const taken = await this.db.query(
      `INSERT INTO gateway.rate_buckets AS b (key_id, tokens, refilled_at) VALUES ($1, $2::float8 - 1, $3)
       ON CONFLICT (key_id) DO UPDATE SET
         tokens = LEAST($2::float8,
           b.tokens + GREATEST(0, EXTRACT(EPOCH FROM ($3::timestamptz - b.refilled_at)))::float8 * $4::float8) - 1,
         refilled_at = GREATEST($3::timestamptz, b.refilled_at)
       WHERE LEAST($2::float8,
           b.tokens + GREATEST(0, EXTRACT(EPOCH FROM ($3::timestamptz - b.refilled_at)))::float8 * $4::float8) >= 1
       RETURNING 1`,
      [keyId, this.config.capacity, now, this.config.refillPerSecond],
    );
    if (taken.length > 0) return { allowed: true };
    const [bucket] = await this.db.query<{ tokens: number; refilled_at: Date }>(
      "SELECT tokens, refilled_at FROM gateway.rate_buckets WHERE key_id = $1",
      [keyId],
    );
    const state = bucket ? { tokens: bucket.tokens, refilledAtMs: bucket.refilled_at.getTime() } : undefined;
    const decision = takeToken(state, now.getTime(), this.config);
    return decision.allowed ? { allowed: false, retryAfterSeconds: 1 } : decision;
  }
}

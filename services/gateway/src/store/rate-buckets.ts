import type { Clock } from "@app/core";
import type { Queryable } from "@app/db";
import { type BucketConfig, takeToken } from "../domain/token-bucket.ts";

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** How long an instance may spend the tokens it took from a bucket; what is left then is forfeited. */
export const LEASE_TTL_MS = 1_000;

/** Most tokens taken from a bucket in one statement. */
const MAX_LEASE = 100;

/**
 * Tokens taken from the database in one statement: 1% of the burst, at least 1, at most 100
 * (3 at the default 300 a minute; 1 below 200 a minute, where the limit stays exact).
 */
export function leaseSize(config: BucketConfig): number {
  return Math.min(MAX_LEASE, Math.max(1, Math.floor(config.capacity / 100)));
}

type Lease = { tokens: number; expiresAtMs: number };

/**
 * The per-key token buckets, kept in the database so that every instance on it shares them.
 * One statement takes tokens: it creates the key's bucket full (minus what it takes) or refills
 * it for the time elapsed and takes them, unless fewer are left. `INSERT … ON CONFLICT DO UPDATE`
 * locks the row, so concurrent runs at any instances never take more than there is.
 *
 * An instance takes a lease of {@link leaseSize} tokens at once (one token when fewer are left)
 * and spends it locally for at most {@link LEASE_TTL_MS}; unspent tokens are then forfeited (not
 * given back). So the database bucket still bounds every run started on any instance; what leases
 * change is that a key can be refused while other instances hold up to `lease − 1` unspent tokens
 * each (refilled within `lease / rate` ≤ 0.6 s), and that over a window a key can start up to
 * `lease − 1` runs per instance more than the exact bucket (tokens taken just before the window).
 * With a lease of 1 (limits under 200 a minute) it is the exact bucket, one statement a run.
 * The arithmetic is the pure {@link takeToken}'s; a refusal reads the bucket and lets it say how
 * long to wait.
 */
export class RateLimiter {
  private readonly leases = new Map<string, Lease>();
  private readonly refills = new Map<string, Promise<RateDecision>>();
  private readonly lease: number;

  constructor(
    private readonly db: Queryable,
    private readonly config: BucketConfig,
    private readonly clock: Clock,
  ) {
    this.lease = leaseSize(config);
  }

  /** Takes one token for a run of `keyId`: from this instance's lease, else from the database. */
  take(keyId: string): RateDecision | Promise<RateDecision> {
    return this.takeLeased(keyId) ?? this.takeFromDatabase(keyId);
  }

  private takeLeased(keyId: string): RateDecision | undefined {
    const held = this.leases.get(keyId);
    if (!held || held.tokens < 1 || this.clock.now().getTime() >= held.expiresAtMs) return undefined;
    held.tokens -= 1;
    return ALLOWED;
  }

  /** Runs of one key that find no lease share one statement, then take from the lease it brought. */
  private async takeFromDatabase(keyId: string): Promise<RateDecision> {
    for (;;) {
      let refill = this.refills.get(keyId);
      if (!refill) {
        const started = this.refill(keyId);
        const forget = () => {
          if (this.refills.get(keyId) === started) this.refills.delete(keyId);
        };
        started.then(forget, forget);
        this.refills.set(keyId, started);
        refill = started;
      }
      const result = await refill;
      if (!result.allowed) return result;
      const taken = this.takeLeased(keyId);
      if (taken) return taken;
    }
  }

  /** A new lease from the database: `lease` tokens, else one, else the refusal and when to retry. */
  private async refill(keyId: string): Promise<RateDecision> {
    const now = this.clock.now();
    for (const amount of this.lease > 1 ? [this.lease, 1] : [1]) {
      if (await this.takeTokens(keyId, amount, now)) {
        this.leases.set(keyId, { tokens: amount, expiresAtMs: now.getTime() + LEASE_TTL_MS });
        return ALLOWED;
      }
    }
    this.leases.delete(keyId);
    const [bucket] = await this.db.query<{ tokens: number; refilled_at: Date }>(
      "SELECT tokens, refilled_at FROM gateway.rate_buckets WHERE key_id = $1",
      [keyId],
    );
    const state = bucket ? { tokens: bucket.tokens, refilledAtMs: bucket.refilled_at.getTime() } : undefined;
    const decision = takeToken(state, now.getTime(), this.config);
    return decision.allowed ? { allowed: false, retryAfterSeconds: 1 } : decision;
  }

  /** Takes `amount` tokens from the key's bucket in one statement, if it holds that many. */
  private async takeTokens(keyId: string, amount: number, now: Date): Promise<boolean> {
    const taken = await this.db.query(
      `INSERT INTO gateway.rate_buckets AS b (key_id, tokens, refilled_at) VALUES ($1, $2::float8 - $5::float8, $3)
       ON CONFLICT (key_id) DO UPDATE SET
         tokens = LEAST($2::float8,
           b.tokens + GREATEST(0, EXTRACT(EPOCH FROM ($3::timestamptz - b.refilled_at)))::float8 * $4::float8) - $5::float8,
         refilled_at = GREATEST($3::timestamptz, b.refilled_at)
       WHERE LEAST($2::float8,
           b.tokens + GREATEST(0, EXTRACT(EPOCH FROM ($3::timestamptz - b.refilled_at)))::float8 * $4::float8) >= $5::float8
       RETURNING 1`,
      [keyId, this.config.capacity, now, this.config.refillPerSecond, amount],
    );
    return taken.length > 0;
  }
}

const ALLOWED: RateDecision = { allowed: true };

import type { Clock } from "@app/core";
import type { Queryable } from "@app/db";
import { checkedOptions, type DatabaseLimiterOptions } from "./limiter-options.ts";
import type { RateDecision, RateLimiter, RateRule } from "./rate-limiter.ts";
import {
  type BucketConfig,
  type BucketState,
  bucketAllowed,
  bucketOf,
  bucketRefused,
  levelAt,
} from "./token-bucket.ts";

/**
 * How long an instance may spend the tokens it took from a bucket, from when the statement that took
 * them returned; what is left then is forfeited.
 */
export const LEASE_TTL_MS = 1_000;

/** Most tokens taken from a bucket in one statement. */
const MAX_LEASE = 100;

/**
 * Tokens taken from the database in one statement: 1% of the burst, at least 1, at most 100
 * (3 at 300 a minute; 1 below 200 a minute, where the limit stays exact).
 */
export function leaseSize(config: BucketConfig): number {
  return Math.min(MAX_LEASE, Math.max(1, Math.floor(config.capacity / 100)));
}

/** Tokens this instance holds for a subject, and the bucket as the statement that gave them left it. */
type Lease = { tokens: number; expiresAtMs: number; bucket: BucketState };

const TAKE = `INSERT INTO edge.rate_buckets AS b (namespace, subject, tokens, refilled_at)
  VALUES ($1::text, $2::text, $3::float8 - $6::float8, $4::timestamptz)
  ON CONFLICT (namespace, subject) DO UPDATE SET
    tokens = LEAST($3::float8,
      b.tokens + GREATEST(0, EXTRACT(EPOCH FROM ($4::timestamptz - b.refilled_at)))::float8 * $5::float8) - $6::float8,
    refilled_at = GREATEST($4::timestamptz, b.refilled_at)
  WHERE LEAST($3::float8,
      b.tokens + GREATEST(0, EXTRACT(EPOCH FROM ($4::timestamptz - b.refilled_at)))::float8 * $5::float8) >= $6::float8
  RETURNING tokens, refilled_at`;

const READ = "SELECT tokens, refilled_at FROM edge.rate_buckets WHERE namespace = $1 AND subject = $2";

type BucketRow = { tokens: number; refilled_at: Date };

/**
 * Token buckets kept in the database so that every instance on it shares them: a burst of
 * `rule.limit`, refilled evenly over `rule.windowSeconds`. One statement takes tokens: it creates
 * the subject's bucket full (minus what it takes) or refills it for the time elapsed and takes
 * them, unless fewer are left. `INSERT … ON CONFLICT DO UPDATE` locks the row, so concurrent takes
 * at any instances never take more than there is.
 *
 * An instance takes a lease of {@link leaseSize} tokens at once (one token when fewer are left):
 * the request that sent the statement spends one of them, and the instance spends the rest locally
 * for at most {@link LEASE_TTL_MS} after the statement returned; unspent tokens are then forfeited
 * (not given back). So the database bucket still bounds every request on any instance; what leases
 * change is that a subject can be refused while other instances hold up to `lease − 1` unspent
 * tokens each (refilled within `lease / rate` ≤ 0.6 s), and that over a window a subject can pass
 * up to `lease − 1` requests per instance more than the exact bucket (tokens taken just before the
 * window). With a lease of 1 (limits under 200 a minute) it is the exact bucket, one statement a
 * request. A take served from a lease answers synchronously; `remaining` and `resetSeconds` are
 * then as this instance sees the bucket (its level when the lease was taken, refilled since, plus
 * the lease's unspent tokens). The arithmetic is `token-bucket.ts`'s; a refusal reads the bucket
 * and lets it say how long to wait.
 *
 * A take sends at most one statement (a lease, else one token, else the read of a refusal), and
 * is answered by it however long it took. Takes of a subject that find neither a lease nor a
 * token left wait for the statement in flight, if any, one after another in their order: each
 * statement answers the take that sent it and as many waiting takes as its lease holds, and a
 * refusal answers every take that waited for it.
 */
export class DatabaseTokenBucket implements RateLimiter {
  readonly rule: RateRule;
  private readonly namespace: string;
  private readonly clock: Clock;
  private readonly config: BucketConfig;
  private readonly lease: number;
  private readonly leases = new Map<string, Lease>();
  /** Per subject, the statement in flight, answering the take that sent it. */
  private readonly statements = new Map<string, Promise<RateDecision>>();

  constructor(
    private readonly db: Queryable,
    options: DatabaseLimiterOptions,
  ) {
    ({ namespace: this.namespace, rule: this.rule, clock: this.clock } = checkedOptions(options));
    this.config = bucketOf(this.rule);
    this.lease = leaseSize(this.config);
  }

  /** Takes one token for `subject`: from this instance's lease (synchronously), else from the database. */
  take(subject: string): RateDecision | Promise<RateDecision> {
    return this.takeLeased(subject) ?? this.takeFromDatabase(subject);
  }

  private takeLeased(subject: string): RateDecision | undefined {
    const held = this.leases.get(subject);
    if (!held || held.tokens < 1) return undefined;
    const nowMs = this.clock.now().getTime();
    if (nowMs >= held.expiresAtMs) return undefined;
    held.tokens -= 1;
    return bucketAllowed(levelAt(held.bucket, nowMs, this.config) + held.tokens, this.config);
  }

  /** Waits for the subject's statement in flight and takes from the lease it brought, or sends one. */
  private takeFromDatabase(subject: string): Promise<RateDecision> {
    const inFlight = this.statements.get(subject);
    return inFlight ? this.takeAfter(subject, inFlight) : this.send(subject);
  }

  /** A take that found a statement in flight: its refusal, else a token of its lease, else the next. */
  private async takeAfter(subject: string, inFlight: Promise<RateDecision>): Promise<RateDecision> {
    const sent = await inFlight;
    if (!sent.allowed) return sent;
    return this.takeLeased(subject) ?? this.takeFromDatabase(subject);
  }

  /** Sends the statement of `subject`'s take, for takes that come meanwhile to wait for. */
  private send(subject: string): Promise<RateDecision> {
    const sent = this.takeInStatement(subject);
    this.statements.set(subject, sent);
    const forget = () => {
      if (this.statements.get(subject) === sent) this.statements.delete(subject);
    };
    // Registered before any waiting take's, so that a take left without a token sends the next.
    sent.then(forget, forget);
    return sent;
  }

  /**
   * Takes a lease (`lease` tokens, else one) from the database, spends one on the take that sent
   * it and keeps the rest until {@link LEASE_TTL_MS} after the statement returned; or the refusal
   * and when to retry.
   */
  private async takeInStatement(subject: string): Promise<RateDecision> {
    const now = this.clock.now();
    for (const amount of this.lease > 1 ? [this.lease, 1] : [1]) {
      const [bucket] = await this.db.query<BucketRow>(
        TAKE,
        [this.namespace, subject, this.config.capacity, now, this.config.refillPerSecond, amount],
        { prepareAs: "edge_rate_bucket_take" },
      );
      if (bucket) {
        const returnedAtMs = this.clock.now().getTime();
        const state = { tokens: bucket.tokens, refilledAtMs: bucket.refilled_at.getTime() };
        const unspent = amount - 1;
        this.leases.set(subject, {
          tokens: unspent,
          expiresAtMs: returnedAtMs + LEASE_TTL_MS,
          bucket: state,
        });
        return bucketAllowed(levelAt(state, returnedAtMs, this.config) + unspent, this.config);
      }
    }
    this.leases.delete(subject);
    const [bucket] = await this.db.query<BucketRow>(READ, [this.namespace, subject]);
    const state = bucket ? { tokens: bucket.tokens, refilledAtMs: bucket.refilled_at.getTime() } : undefined;
    return bucketRefused(state, this.clock.now().getTime(), this.config);
  }
}

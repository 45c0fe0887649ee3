import { type KeyRateLimit, type RateDecision, type RateLimiter, rateLimitedError } from "@app/edge";
import type { Caller } from "../store/accounts.ts";

/** Distinct per-key rates whose limiters are kept at once; past it the oldest is dropped (its lease with it). */
const MAX_RATES = 1_000;

/**
 * The runs limit of each gateway key: the gateway's default limiter, or, for a key whose policy
 * sets its own rate (`ratePerMinute`), a limiter of that rate made by `limiterOf` (one per
 * distinct rate, kept). Every limiter counts in the same bucket of the key (the key's id in one
 * namespace), so a changed rate applies to what the key has already spent: the bucket never holds
 * more than the new rate's burst.
 */
export class KeyRateLimiters {
  private readonly byRate = new Map<number, RateLimiter>();

  constructor(
    readonly standard: RateLimiter,
    private readonly limiterOf: (runsPerMinute: number) => RateLimiter,
  ) {}

  /** The limiter of the caller's key. */
  of(caller: Caller): RateLimiter {
    const rate = caller.access?.ratePerMinute ?? null;
    if (rate === null || rate === this.standard.rule.limit) return this.standard;
    let limiter = this.byRate.get(rate);
    if (!limiter) {
      if (this.byRate.size >= MAX_RATES) {
        const oldest = this.byRate.keys().next().value;
        if (oldest !== undefined) this.byRate.delete(oldest);
      }
      limiter = this.limiterOf(rate);
      this.byRate.set(rate, limiter);
    }
    return limiter;
  }
}

/** The 429's message when a key has started all the runs its bucket allows for now. */
function runsLimitedMessage(decision: Extract<RateDecision, { allowed: false }>): string {
  return `This gateway key may start ${decision.limit} runs a minute; try again in ${decision.retryAfterSeconds} s.`;
}

/**
 * The runs limit of `POST /v1/run` as the key guard's `rateLimit`: every request with a valid key
 * takes a token from its key's bucket (at its key's own rate, if its policy sets one) before
 * anything else is looked at (its body, its `Idempotency-Key`), so replays, 409s and 422s count as
 * runs do. The guard answers the 429 and puts the `RateLimit-*` headers on every answer; the run
 * itself then takes no second token.
 */
export function runRateLimit(limiters: KeyRateLimiters): KeyRateLimit<Caller> {
  return {
    limiter: limiters.standard,
    limiterOf: (caller) => limiters.of(caller),
    subject: (caller) => caller.keyId,
    message: runsLimitedMessage,
  };
}

/**
 * Takes one token from the caller's key's bucket for a run that no guard counted (MCP's `run`,
 * once its tool and input are found valid), or throws the 429 the guard would answer.
 */
export async function takeRunToken(limiters: KeyRateLimiters, caller: Caller): Promise<RateDecision> {
  const limiter = limiters.of(caller);
  const decision = await limiter.take(caller.keyId);
  if (!decision.allowed) {
    throw rateLimitedError(decision, runsLimitedMessage(decision), {
      windowSeconds: limiter.rule.windowSeconds,
    });
  }
  return decision;
}

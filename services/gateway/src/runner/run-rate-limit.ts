import { type KeyRateLimit, type RateDecision, type RateLimiter, rateLimitedError } from "@app/edge";
import type { Caller } from "../store/accounts.ts";

/** The 429's message when a key has started all the runs its bucket allows for now. */
function runsLimitedMessage(decision: Extract<RateDecision, { allowed: false }>): string {
  return `This gateway key may start ${decision.limit} runs a minute; try again in ${decision.retryAfterSeconds} s.`;
}

/**
 * The runs limit of `POST /v1/run` as the key guard's `rateLimit`: every request with a valid key
 * takes a token from its key's bucket before anything else is looked at (its body, its
 * `Idempotency-Key`), so replays, 409s and 422s count as runs do. The guard answers the 429 and
 * puts the `RateLimit-*` headers on every answer; the run itself then takes no second token.
 */
export function runRateLimit(limiter: RateLimiter): KeyRateLimit<Caller> {
  return { limiter, subject: (caller) => caller.keyId, message: runsLimitedMessage };
}

/**
 * Takes one token from the caller's key's bucket for a run that no guard counted (MCP's `run`,
 * once its tool and input are found valid), or throws the 429 the guard would answer.
 */
export async function takeRunToken(limiter: RateLimiter, caller: Caller): Promise<RateDecision> {
  const decision = await limiter.take(caller.keyId);
  if (!decision.allowed) {
    throw rateLimitedError(decision, runsLimitedMessage(decision), {
      windowSeconds: limiter.rule.windowSeconds,
    });
  }
  return decision;
}

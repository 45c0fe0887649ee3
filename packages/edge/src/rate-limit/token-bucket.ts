import type { RateDecision, RateRule } from "./rate-limiter.ts";

/**
 * A token bucket, as pure arithmetic: `capacity` tokens at most, refilled continuously at
 * `refillPerSecond`; a run takes one token, and is refused when less than one is left.
 */
export type BucketConfig = { capacity: number; refillPerSecond: number };

/** A bucket's level at an instant (milliseconds since the epoch). */
export type BucketState = { tokens: number; refilledAtMs: number };

export type BucketDecision =
  | { allowed: true; state: BucketState }
  | { allowed: false; state: BucketState; retryAfterSeconds: number };

/** The bucket of a rule: a burst of `limit`, refilled evenly over `windowSeconds`. */
export function bucketOf(rule: RateRule): BucketConfig {
  return { capacity: rule.limit, refillPerSecond: rule.limit / rule.windowSeconds };
}

/** The level at `nowMs`: refilled for the time elapsed since the last update (never backwards). */
export function refill(state: BucketState | undefined, nowMs: number, config: BucketConfig): BucketState {
  if (!state) return { tokens: config.capacity, refilledAtMs: nowMs };
  return { tokens: levelAt(state, nowMs, config), refilledAtMs: Math.max(nowMs, state.refilledAtMs) };
}

/** The tokens of `state` refilled to `nowMs`, capped at the capacity (no allocation: hot path). */
export function levelAt(state: BucketState, nowMs: number, config: BucketConfig): number {
  const elapsedMs = Math.max(0, nowMs - state.refilledAtMs);
  return Math.min(config.capacity, state.tokens + (elapsedMs / 1000) * config.refillPerSecond);
}

/**
 * Takes one token at `nowMs`. When none is left, the state is only refilled, and the decision says
 * how many whole seconds until a token is back (at least 1, for a `Retry-After` header).
 */
export function takeToken(
  state: BucketState | undefined,
  nowMs: number,
  config: BucketConfig,
): BucketDecision {
  const current = refill(state, nowMs, config);
  if (current.tokens >= 1) {
    return { allowed: true, state: { ...current, tokens: current.tokens - 1 } };
  }
  const missing = 1 - current.tokens;
  const retryAfterSeconds = Math.max(1, Math.ceil(missing / config.refillPerSecond));
  return { allowed: false, state: current, retryAfterSeconds };
}

/** Whole seconds until a bucket holding `tokens` is full again (0 when it is). */
export function secondsUntilFull(tokens: number, config: BucketConfig): number {
  return Math.max(0, Math.ceil((config.capacity - tokens) / config.refillPerSecond));
}

/**
 * The decision on a run that took its token, `tokensLeft` remaining after it (the bucket's level,
 * plus what a lease still holds): whole tokens remaining, and the seconds until the bucket is full.
 */
export function bucketAllowed(tokensLeft: number, config: BucketConfig): RateDecision {
  const left = Math.min(config.capacity, Math.max(0, tokensLeft));
  return {
    allowed: true,
    limit: config.capacity,
    remaining: Math.floor(left),
    resetSeconds: secondsUntilFull(left, config),
  };
}

/** The decision on a run refused at `nowMs` by the bucket in `state` (or by a bucket just emptied). */
export function bucketRefused(
  state: BucketState | undefined,
  nowMs: number,
  config: BucketConfig,
): RateDecision {
  const current = refill(state, nowMs, config);
  const decision = takeToken(current, nowMs, config);
  // A bucket that holds a token again (refilled since the statement that found it empty): soon.
  const retryAfterSeconds = decision.allowed ? 1 : decision.retryAfterSeconds;
  return {
    allowed: false,
    limit: config.capacity,
    remaining: 0,
    resetSeconds: Math.max(retryAfterSeconds, secondsUntilFull(current.tokens, config)),
    retryAfterSeconds,
  };
}

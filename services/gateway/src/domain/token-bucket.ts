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

/** `perMinute` runs a minute, with a burst of as many. */
export function perMinute(runs: number): BucketConfig {
  return { capacity: runs, refillPerSecond: runs / 60 };
}

/** The level at `nowMs`: refilled for the time elapsed since the last update (never backwards). */
export function refill(state: BucketState | undefined, nowMs: number, config: BucketConfig): BucketState {
  if (!state) return { tokens: config.capacity, refilledAtMs: nowMs };
  const elapsedMs = Math.max(0, nowMs - state.refilledAtMs);
  const tokens = Math.min(config.capacity, state.tokens + (elapsedMs / 1000) * config.refillPerSecond);
  return { tokens, refilledAtMs: Math.max(nowMs, state.refilledAtMs) };
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

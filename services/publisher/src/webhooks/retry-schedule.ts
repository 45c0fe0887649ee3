/**
 * When a failed webhook delivery is tried again, when it is given up, and when its endpoint is
 * turned off: pure rules, no I/O.
 *
 * The schedule: the first attempt at once; after the n-th failure the next waits 10 s × 4^(n−1),
 * at most 8 hours, each delay drawn within ±20 % (jitter, so that a receiver back from an outage
 * is not hit by every delivery in the same second). Ten attempts in all: nominally 10 s, 40 s,
 * 2 min 40 s, 10 min 40 s, 42 min 40 s, 2 h 50 min, then 8 h three times, the last attempt about
 * 28 hours after the first (22–33 h with the jitter). A `Retry-After` from the receiver (seconds
 * or an HTTP date) replaces the next delay, kept between 1 s and 8 hours.
 *
 * An endpoint is turned off once it has failed every attempt for 5 days, with at least 10
 * failures in a row (the whole schedule of a delivery): `webhook.endpoint_disabled` then tells
 * its owner.
 *
 * An endpoint whose receiver gave no answer within the time limit 3 times in a row is paused as a
 * whole (none of its deliveries is claimed, their attempts unspent): 30 s, doubled at each further
 * timeout, at most 1 hour. A timeout holds a worker's slot for the whole limit; without the pause
 * each of its deliveries would hold one in turn.
 */
export type WebhookRetryPolicy = {
  /** Attempts of one delivery, the first included. */
  maxAttempts: number;
  /** The delay after the first failure. */
  baseDelayMs: number;
  /** Each failure multiplies the delay by this. */
  factor: number;
  /** The longest delay between two attempts (a Retry-After is held to it too). */
  maxDelayMs: number;
  /** Each delay is drawn in [1 − jitter, 1 + jitter] × its nominal value. */
  jitter: number;
  /** The shortest delay a Retry-After may ask for. */
  minRetryAfterMs: number;
  /** An endpoint failing for this long … */
  disableAfterMs: number;
  /** … with at least this many failed attempts in a row is turned off. */
  disableAfterFailures: number;
  /** Timeouts in a row after which the endpoint is paused. */
  pauseAfterTimeouts: number;
  /** The first pause; each further timeout doubles it. */
  pauseBaseMs: number;
  /** The longest pause. */
  pauseMaxMs: number;
};

const SECOND = 1_000;
const HOUR = 3_600 * SECOND;
const DAY = 24 * HOUR;

/** The schedule documented above. */
export const DEFAULT_WEBHOOK_RETRY: WebhookRetryPolicy = {
  maxAttempts: 10,
  baseDelayMs: 10 * SECOND,
  factor: 4,
  maxDelayMs: 8 * HOUR,
  jitter: 0.2,
  minRetryAfterMs: SECOND,
  disableAfterMs: 5 * DAY,
  disableAfterFailures: 10,
  pauseAfterTimeouts: 3,
  pauseBaseMs: 30 * SECOND,
  pauseMaxMs: HOUR,
};

/** The nominal delay (no jitter) after the `failures`-th failure of a delivery (1-based). */
export function nominalDelayMs(policy: WebhookRetryPolicy, failures: number): number {
  const exponent = Math.max(0, failures - 1);
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * policy.factor ** exponent);
}

/**
 * The delay before the next attempt after the `failures`-th failure: the receiver's Retry-After
 * when it gave one (bounded), else the nominal delay with jitter. `random` is in [0, 1).
 */
export function retryDelayMs(
  policy: WebhookRetryPolicy,
  failures: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) {
    return Math.min(policy.maxDelayMs, Math.max(policy.minRetryAfterMs, retryAfterMs));
  }
  const nominal = nominalDelayMs(policy, failures);
  return Math.round(nominal * (1 - policy.jitter + 2 * policy.jitter * random()));
}

/**
 * A `Retry-After` header in milliseconds from `now`: delay-seconds or an HTTP date; undefined
 * when absent or not one of the two. A date in the past is 0.
 */
export function parseRetryAfter(header: string | undefined, now: Date): number | undefined {
  const text = header?.trim();
  if (!text) return undefined;
  if (/^\d{1,10}$/.test(text)) return Number(text) * SECOND;
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, at - now.getTime());
}

/** Whether a delivery that just failed its `attempts`-th attempt is given up. */
export const isLastAttempt = (policy: WebhookRetryPolicy, attempts: number): boolean =>
  attempts >= policy.maxAttempts;

/** Whether an endpoint failing since `failingSince`, `failures` times in a row, is turned off now. */
export function shouldDisableEndpoint(
  policy: WebhookRetryPolicy,
  streak: { failingSince: Date; failures: number },
  now: Date,
): boolean {
  return (
    streak.failures >= policy.disableAfterFailures &&
    now.getTime() - streak.failingSince.getTime() >= policy.disableAfterMs
  );
}

/**
 * How long an endpoint is paused after its `timeouts`-th timeout in a row; null below the
 * threshold (no pause).
 */
export function endpointPauseMs(policy: WebhookRetryPolicy, timeouts: number): number | null {
  if (timeouts < policy.pauseAfterTimeouts) return null;
  const doublings = Math.min(timeouts - policy.pauseAfterTimeouts, 32);
  return Math.min(policy.pauseMaxMs, policy.pauseBaseMs * 2 ** doublings);
}

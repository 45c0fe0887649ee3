import { MediaStalled } from "../media/guarded-fetch.ts";
import { MediaError } from "../media/media-error.ts";
import { PlatformError } from "../platforms/errors.ts";
import { PlatformTimeout } from "../platforms/http.ts";
import type { FailureAnswer } from "../store/run-history.ts";
import type { TargetSettlement } from "../store/targets.ts";

/** How often and how patiently a target is retried after transient failures. */
export type RetryPolicy = {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** The longest `Retry-After` honoured as given (a longer one is capped to this). */
  maxRetryAfterMs: number;
  /**
   * Attempts of a target that stalled: its media download stalled (a host trickling bytes) or
   * ran past its total limit, or a platform call timed out (a self-hosted PDS that never
   * answers). A stall is retried once by default, then fails the target, so that such a host
   * cannot hold workers `maxAttempts` times over.
   */
  maxStalledAttempts: number;
};

export const defaultRetryPolicy = (): RetryPolicy => ({
  maxAttempts: 8,
  baseDelayMs: 10_000,
  maxDelayMs: 30 * 60_000,
  maxRetryAfterMs: 6 * 60 * 60_000,
  maxStalledAttempts: 2,
});

/** Exponential backoff with jitter (between half and all of `base · 2^failures`, capped). */
export function backoffMs(policy: RetryPolicy, failures: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(failures, 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

type Classified = { transient: boolean; error: string; retryAfterMs: number | null; stalled?: boolean };

/**
 * A time limit that ran out while an answer was read (the runtime's `TimeoutError` of
 * `AbortSignal.timeout`: a platform that sent its head and then stalled its body).
 */
function isTimeLimit(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError";
}

/** A failure's class and the text a failed target keeps; unknown errors count as transient. */
export function classifyFailure(error: unknown): Classified {
  if (error instanceof PlatformError) {
    const transient = error.kind === "transient" || error.kind === "unauthorized";
    return {
      transient,
      error: error.describe(),
      retryAfterMs: error.retryAfterMs,
      stalled: error instanceof PlatformTimeout,
    };
  }
  if (isTimeLimit(error)) {
    return {
      transient: true,
      error: "timeout: a platform's answer timed out",
      retryAfterMs: null,
      stalled: true,
    };
  }
  if (error instanceof MediaError) {
    return {
      transient: error.transient,
      error: `${error.code}: ${error.message}`,
      retryAfterMs: null,
      stalled: error instanceof MediaStalled,
    };
  }
  return { transient: true, error: "INTERNAL: publishing failed unexpectedly", retryAfterMs: null };
}

/**
 * What the platform answered to a failed turn (its code, message and HTTP status), or why
 * publishing itself failed, for the history and `target.failed`. Made from the error's classified
 * fields only, never from a request: no token can be in it.
 */
export function failureAnswer(error: unknown): FailureAnswer {
  if (error instanceof PlatformError) {
    return {
      platform: error.platform,
      code: error.reason,
      message: error.message,
      ...(error.status === null ? {} : { httpStatus: error.status }),
    };
  }
  if (isTimeLimit(error)) return { code: "timeout", message: "a platform's answer timed out" };
  if (error instanceof MediaError) return { code: error.code, message: error.message };
  return { code: "INTERNAL", message: "publishing failed unexpectedly" };
}

/**
 * What becomes of a target after a failed turn: failed for good (a permanent refusal, a lost
 * grant, or out of attempts: `maxStalledAttempts` when it stalled), or run again
 * after the backoff, never sooner than the platform's `Retry-After`. `attempts` counts the
 * failures before this one.
 */
export function settlementForFailure(
  error: unknown,
  attempts: number,
  now: Date,
  policy: RetryPolicy,
  random?: () => number,
): TargetSettlement {
  const failure = classifyFailure(error);
  if (!failure.transient) return { kind: "failed", error: failure.error };
  const allowed = failure.stalled
    ? Math.min(policy.maxAttempts, policy.maxStalledAttempts)
    : policy.maxAttempts;
  if (attempts + 1 >= allowed) {
    return { kind: "failed", error: `${failure.error} (gave up after ${attempts + 1} attempts)` };
  }
  const retryAfter = Math.min(failure.retryAfterMs ?? 0, policy.maxRetryAfterMs);
  const delay = Math.max(backoffMs(policy, attempts, random), retryAfter);
  return {
    kind: "later",
    runAt: new Date(now.getTime() + delay),
    countAsAttempt: true,
    error: failure.error,
    delayMs: delay,
  };
}

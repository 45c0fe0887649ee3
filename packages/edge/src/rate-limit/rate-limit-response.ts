import { ApiError, type ErrorDetails } from "@app/core";
import type { RateDecision } from "./rate-limiter.ts";

/**
 * The headers of a limited route's every response, per the IETF draft "RateLimit header fields
 * for HTTP" (the three-header form): the limit, what is left after this request, and the seconds
 * until the allowance is whole again.
 */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    "RateLimit-Limit": String(decision.limit),
    "RateLimit-Remaining": String(decision.remaining),
    "RateLimit-Reset": String(decision.resetSeconds),
  };
}

/**
 * The one 429 of the platform: `RATE_LIMITED` with `Retry-After` and the `RateLimit-*` headers,
 * the limit and the wait repeated in the body for clients that do not read headers.
 */
export function rateLimitedError(
  decision: Extract<RateDecision, { allowed: false }>,
  message: string,
  details: ErrorDetails = {},
): ApiError {
  return new ApiError(
    "RATE_LIMITED",
    message,
    { limit: decision.limit, retryAfterSeconds: decision.retryAfterSeconds, ...details },
    { ...rateLimitHeaders(decision), "Retry-After": String(decision.retryAfterSeconds) },
  );
}

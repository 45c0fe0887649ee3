import { ApiError } from "@app/core";

/**
 * 422 `IDEMPOTENCY_KEY_REUSED`: the key came back with another request (another body, another
 * operation's arguments), per the draft.
 */
export function idempotencyKeyReused(): ApiError {
  return new ApiError(
    "IDEMPOTENCY_KEY_REUSED",
    "This Idempotency-Key was used with a different request; use a new key for a new request.",
  );
}

/** 409 `REQUEST_IN_PROGRESS` with `Retry-After`: the key's first request has not finished yet. */
export function requestInProgress(retryAfterSeconds = 1): ApiError {
  return new ApiError(
    "REQUEST_IN_PROGRESS",
    "A request with this Idempotency-Key is still running; retry shortly.",
    { retryAfterSeconds },
    { "Retry-After": String(retryAfterSeconds) },
  );
}

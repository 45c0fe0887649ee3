import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { requestIdOf } from "./http/request-context.ts";
import type { Logger } from "./logger.ts";

/**
 * The closed list of platform error codes and the HTTP status each one maps to.
 * This table is the only place a code meets its status; every service renders its
 * failures through it.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  CHARGE_OVER_CAP: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  FAVORITES_LIMIT: 409,
  FAVORITE_EXISTS: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  REQUEST_IN_PROGRESS: 409,
  LENGTH_REQUIRED: 411,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  PAYMENT_RAIL_UNAVAILABLE: 503,
  NOT_READY: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Extra fields rendered next to `error` and `message` in the error body. */
export type ErrorDetails = Record<string, unknown>;

/** The platform error body: `{error, message, ...details}`. */
export type ErrorBody = { error: ErrorCode; message: string } & ErrorDetails;

/**
 * An expected failure that the caller should see. Thrown anywhere below a route and
 * rendered by {@link handleError} as the platform error body.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    details: ErrorDetails = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): ContentfulStatusCode {
    return ERROR_STATUS[this.code];
  }

  toBody(): ErrorBody {
    const { error: _error, message: _message, ...details } = this.details;
    return { error: this.code, message: this.message, ...details };
  }
}

/** Renders an error as the platform JSON response. */
export function errorResponse(c: Context, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(error.toBody(), error.status);
}

function fromHttpException(error: HTTPException): ApiError {
  if (error.status === 400 && /json/i.test(error.message)) {
    return new ApiError("MALFORMED_JSON", "The request body is not valid JSON.");
  }
  const code = (Object.keys(ERROR_STATUS) as ErrorCode[]).find((key) => ERROR_STATUS[key] === error.status);
  return new ApiError(code ?? "BAD_REQUEST", error.message || "The request could not be handled.");
}

/**
 * The one `onError` of every service: expected errors keep their code, anything
 * else is logged and answered with a bare 500 that reveals nothing.
 */
export function createErrorHandler(logger: Logger) {
  return (error: Error, c: Context): Response => {
    if (error instanceof ApiError) return errorResponse(c, error);
    if (error instanceof HTTPException) return errorResponse(c, fromHttpException(error));
    logger.error({ err: error, requestId: requestIdOf(c), headers: c.req.raw.headers }, "unhandled error");
    return errorResponse(c, new ApiError("INTERNAL", "Something went wrong on our side."));
  };
}

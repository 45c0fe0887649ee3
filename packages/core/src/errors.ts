import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { requestIdOf } from "./http/request-context.ts";
import type { Logger } from "./logger.ts";

/** A table of error codes and the HTTP status each one maps to. */
export type ErrorTable = Readonly<Record<string, ContentfulStatusCode>>;

/**
 * The platform's own error codes, shared by every service, and their statuses. A service adds
 * the codes of its domain with {@link defineErrors}; this table holds only what every service
 * can answer.
 */
export const PLATFORM_ERRORS = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  REQUEST_IN_PROGRESS: 409,
  LENGTH_REQUIRED: 411,
  PAYLOAD_TOO_LARGE: 413,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  REQUEST_HEADER_FIELDS_TOO_LARGE: 431,
  INTERNAL: 500,
  NOT_READY: 503,
} as const satisfies ErrorTable;

export type PlatformErrorCode = keyof typeof PLATFORM_ERRORS;

/** Extra fields rendered next to `error` and `message` in the error body. */
export type ErrorDetails = Record<string, unknown>;

/** The platform error body: `{error, message, ...details}`. */
export type ErrorBody = { error: string; message: string } & ErrorDetails;

/**
 * An expected failure that the caller should see. Thrown anywhere below a route and
 * rendered by {@link createErrorHandler} as the platform error body. `new ApiError(code, …)`
 * takes a platform code; a service's own codes come from the class {@link defineErrors} makes.
 */
export class ApiError extends Error {
  readonly code: string;
  readonly status: ContentfulStatusCode;
  readonly details: ErrorDetails;
  readonly headers: Record<string, string>;

  constructor(
    code: PlatformErrorCode,
    message: string,
    details: ErrorDetails = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = this.statusOf(code);
    this.details = details;
    this.headers = headers;
  }

  /** The status of a code; a service's error class extends the platform table with its own. */
  protected statusOf(code: string): ContentfulStatusCode {
    return PLATFORM_ERRORS[code as PlatformErrorCode];
  }

  /** The same error with more response headers. */
  withHeaders(headers: Record<string, string>): ApiError {
    const copy = Object.create(Object.getPrototypeOf(this)) as ApiError;
    return Object.assign(copy, this, { message: this.message, headers: { ...this.headers, ...headers } });
  }

  toBody(): ErrorBody {
    const { error: _error, message: _message, ...details } = this.details;
    return { error: this.code, message: this.message, ...details };
  }

  /**
   * The JSON text the error is answered with: {@link toBody}, serialised. A refusal whose body a
   * protocol fixes (x402's `PaymentRequired` in a 402) overrides it to answer with exactly that text.
   */
  toJson(): string {
    return JSON.stringify(this.toBody());
  }
}

/** A service's error class: its own codes besides the platform's, each with its status. */
export type ServiceErrorClass<Code extends string> = new (
  code: Code | PlatformErrorCode,
  message: string,
  details?: ErrorDetails,
  headers?: Record<string, string>,
) => ApiError;

/**
 * The error class of a service that owns the codes in `table` (for example
 * `class FortuneError extends defineErrors({FAVORITES_LIMIT: 409}) {}`). A code may not
 * redefine a platform code.
 */
export function defineErrors<const Table extends ErrorTable>(
  table: Table & { [Code in PlatformErrorCode]?: never },
): ServiceErrorClass<keyof Table & string> {
  const statuses: ErrorTable = { ...PLATFORM_ERRORS, ...table };
  return class ServiceError extends ApiError {
    constructor(
      code: (keyof Table & string) | PlatformErrorCode,
      message: string,
      details?: ErrorDetails,
      headers?: Record<string, string>,
    ) {
      super(code as PlatformErrorCode, message, details, headers);
    }

    protected override statusOf(code: string): ContentfulStatusCode {
      return statuses[code] as ContentfulStatusCode;
    }
  };
}

/** Renders an error as the platform JSON response. */
export function errorResponse(c: Context, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.body(error.toJson(), error.status, { "Content-Type": "application/json" });
}

function fromHttpException(error: HTTPException): ApiError {
  if (error.status === 400 && /json/i.test(error.message)) {
    return new ApiError("MALFORMED_JSON", "The request body is not valid JSON.");
  }
  const code = (Object.keys(PLATFORM_ERRORS) as PlatformErrorCode[]).find(
    (key) => PLATFORM_ERRORS[key] === error.status,
  );
  return new ApiError(code ?? "BAD_REQUEST", error.message || "The request could not be handled.");
}

/**
 * The one `onError` of every service: expected errors keep their code, anything
 * else is logged and answered with a bare 500 that reveals nothing.
 */
export function createErrorHandler(logger: Logger) {
  return (error: Error, c: Context): Response => {
    if (error instanceof ApiError) {
      // An answer of ours for a failure below it (a database down): the failure is logged, not shown.
      if (error.status >= 500 && error.cause !== undefined) {
        logger.error({ err: error.cause, requestId: requestIdOf(c) }, error.message);
      }
      return errorResponse(c, error);
    }
    if (error instanceof HTTPException) return errorResponse(c, fromHttpException(error));
    logger.error({ err: error, requestId: requestIdOf(c), headers: c.req.raw.headers }, "unhandled error");
    return errorResponse(c, new ApiError("INTERNAL", "Something went wrong on our side."));
  };
}

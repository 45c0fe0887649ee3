import type { MiddlewareHandler } from "hono";
import { ApiError, errorResponse } from "../errors.ts";
import { requestHeader } from "./headers.ts";

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

export type ContentLengthGuardOptions = {
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** When true a body must announce its length (411 otherwise), even an empty one. */
  required?: boolean;
  /** Requests this guard leaves to a guard of their own (for example an upload route). */
  skip?: (path: string, method: string) => boolean;
};

function closing(error: ApiError): ApiError {
  return error.withHeaders({ Connection: "close" });
}

/**
 * Answers 411 or 413 from the headers alone, before any byte of the body is read,
 * and closes the connection so the client stops sending. A chunked body with no
 * `Content-Length` is refused (411): its size cannot be checked up front.
 */
export function contentLengthGuard(options: ContentLengthGuardOptions): MiddlewareHandler {
  const maxBytes = options.maxBytes;
  return async (c, next) => {
    const method = c.req.method;
    if (!BODY_METHODS.has(method) || options.skip?.(c.req.path, method)) return next();
    const declared = requestHeader(c, "content-length");
    if (declared === undefined) {
      const hasBody = requestHeader(c, "transfer-encoding") !== undefined;
      if (hasBody || options.required) {
        return errorResponse(
          c,
          closing(
            new ApiError("LENGTH_REQUIRED", "A Content-Length header is required for this request body."),
          ),
        );
      }
      return next();
    }
    if (!/^\d+$/.test(declared)) {
      return errorResponse(
        c,
        closing(new ApiError("BAD_REQUEST", "The Content-Length header is not a number.")),
      );
    }
    const length = Number(declared);
    if (length > maxBytes) {
      return errorResponse(
        c,
        closing(
          new ApiError("PAYLOAD_TOO_LARGE", `The request body is larger than ${maxBytes} bytes.`, {
            limitBytes: maxBytes,
          }),
        ),
      );
    }
    return next();
  };
}

import type { ErrorRenderer } from "../kit/failure.ts";

const DEFAULT_ERROR: Record<number, string> = {
  400: "InvalidRequest",
  401: "AuthenticationRequired",
  403: "Forbidden",
  404: "NotFound",
  413: "PayloadTooLarge",
  429: "RateLimitExceeded",
  500: "InternalServerError",
  501: "MethodNotImplemented",
  502: "UpstreamFailure",
  503: "NotEnoughResources",
  504: "UpstreamTimeout",
};

const DEFAULT_MESSAGE: Record<string, string> = {
  AuthenticationRequired: "Authentication Required",
  RateLimitExceeded: "Rate Limit Exceeded",
  InternalServerError: "Internal Server Error",
  MethodNotImplemented: "Method Not Implemented",
};

/** The XRPC error body: `{error, message}`. */
export const xrpcErrors: ErrorRenderer = ({ status, code, message }) => {
  const error = code || DEFAULT_ERROR[status] || "InternalServerError";
  return { status, body: { error, message: message || DEFAULT_MESSAGE[error] || error } };
};

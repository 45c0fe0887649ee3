import { randomBytes } from "node:crypto";
import type { Context } from "hono";
import type { ErrorRenderer } from "../kit/failure.ts";

/** A TikTok `log_id`: a timestamp and random hex, as TikTok's look. */
export function newLogId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/\D/g, "").slice(0, 14);
  return `${stamp}${randomBytes(10).toString("hex").toUpperCase()}`;
}

const DEFAULT_CODE: Record<number, string> = {
  400: "invalid_params",
  401: "access_token_invalid",
  403: "scope_permission_missed",
  404: "invalid_params",
  405: "invalid_params",
  413: "invalid_params",
  429: "rate_limit_exceeded",
  500: "internal_error",
  503: "internal_error",
};

const DEFAULT_MESSAGE: Record<string, string> = {
  access_token_invalid: "The access token is invalid or not found in the request.",
  rate_limit_exceeded: "The API rate limit was exceeded. Please try again later.",
  internal_error: "Internal error.",
  spam_risk_too_many_posts: "The daily post cap from the API is reached for the current user.",
  spam_risk_too_many_pending_share: "The user has reached the limit of pending shares.",
  unaudited_client_can_only_post_to_private_accounts: "Unaudited clients can only post to a private account.",
};

/** TikTok's envelope for a refusal: `{data: {}, error: {code, message, log_id}}`. */
export const tiktokErrors: ErrorRenderer = ({ status, code, message }) => {
  const errorCode = code || DEFAULT_CODE[status] || "internal_error";
  return {
    status,
    body: {
      data: {},
      error: {
        code: errorCode,
        message: message || DEFAULT_MESSAGE[errorCode] || errorCode,
        log_id: newLogId(),
      },
    },
  };
};

/** TikTok's OAuth token endpoint refusal: `{error, error_description, log_id}`. */
export const tiktokOAuthErrors: ErrorRenderer = ({ status, code, message }) => ({
  status,
  body: {
    error:
      code || (status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request"),
    error_description: message || "The request failed.",
    log_id: newLogId(),
  },
});

/** A successful TikTok answer: the data with `error.code` "ok". */
export function tiktokOk(c: Context, data: Record<string, unknown>): Response {
  return c.json({ data, error: { code: "ok", message: "", log_id: newLogId() } }, 200);
}

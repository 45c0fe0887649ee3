import { defineErrors } from "@app/core";

/**
 * The gateway's own error codes, besides the platform's (`UNAUTHORIZED` 401, `RATE_LIMITED` 429,
 * `REQUEST_IN_PROGRESS` 409, `IDEMPOTENCY_KEY_REUSED` 422, …). Every gateway failure of a run or an
 * inspect, over HTTP or MCP, is one of these with the body `{error, message, ...details}`.
 */
export class GatewayError extends defineErrors({
  /** The run body, or the tool's input, does not match its schema (`issues: [{path, message}]`). */
  INVALID_INPUT: 400,
  /** The tool needs the caller's upstream key and none came with the run. */
  UPSTREAM_KEY_REQUIRED: 400,
  /** A priced tool costs more than the account's balance. */
  INSUFFICIENT_BALANCE: 402,
  /** No registered tool has this provider, endpoint and method. */
  TOOL_NOT_FOUND: 404,
  /** The upstream could not be reached (refused, reset, DNS, TLS). */
  UPSTREAM_UNAVAILABLE: 502,
  /** The upstream's response is larger than the gateway accepts. */
  UPSTREAM_RESPONSE_TOO_LARGE: 502,
  /** The upstream did not connect or answer in time. */
  UPSTREAM_TIMEOUT: 504,
}) {}

import { defineErrors } from "@app/core";

/**
 * The gateway's own error codes, besides the platform's (`UNAUTHORIZED` 401, `RATE_LIMITED` 429,
 * `REQUEST_IN_PROGRESS` 409, `IDEMPOTENCY_KEY_REUSED` 422, …). Every gateway failure of a run, an
 * inspect or a catalog read, over HTTP or MCP, is one of these with the body `{error, message, ...details}`.
 */
export class GatewayError extends defineErrors({
  /** The run body, or the tool's input, does not match its schema (`issues: [{path, message}]`). */
  INVALID_INPUT: 400,
  /** The tool needs the caller's upstream key and none came with the run. */
  UPSTREAM_KEY_REQUIRED: 400,
  /** A priced tool costs more than the account's balance. */
  INSUFFICIENT_BALANCE: 402,
  /** The run would take its key past a daily spend cap of its policy (`cap`, `spent`, `price`, `resetsAt`). */
  SPEND_CAP_REACHED: 402,
  /** Pay for credit (x402, MPP) or sign in with the wallet (SIWX) first: the 402's headers say how. */
  PAYMENT_REQUIRED: 402,
  /** No gateway account is owned by the wallet that signed in or paid. */
  ACCOUNT_NOT_FOUND: 404,
  /** No key of the signed-in wallet's account has this id. */
  KEY_NOT_FOUND: 404,
  /** The wallet already owns an account (one per wallet); `accountId` names it. */
  ACCOUNT_EXISTS: 409,
  /** No registered tool has this provider, endpoint and method. */
  TOOL_NOT_FOUND: 404,
  /** No provider the caller may see has this id (`providers` lists those it may see). */
  PROVIDER_NOT_FOUND: 404,
  /** The caller's account has no run with this id (another account's runs are as unknown). */
  RUN_NOT_FOUND: 404,
  /** A POST to `/mcp` whose body is not declared JSON (`Content-Type: application/json`). */
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** The upstream could not be reached (refused, reset, DNS, TLS). */
  UPSTREAM_UNAVAILABLE: 502,
  /** The upstream's response is larger than the gateway accepts. */
  UPSTREAM_RESPONSE_TOO_LARGE: 502,
  /** The upstream did not connect or answer in time. */
  UPSTREAM_TIMEOUT: 504,
  /** A payment was sent to the chain and is not confirmed yet: it is credited once it is. */
  SETTLEMENT_PENDING: 503,
  /** The payment rails (facilitator, chain) cannot be reached; nothing was charged. */
  PAYMENTS_UNAVAILABLE: 503,
  /**
   * A self-serve route (accounts, keys, credit) on a gateway started without payment rails: not
   * transient, so no `Retry-After`; the message says how to start the gateway with them.
   */
  NOT_CONFIGURED: 503,
}) {}

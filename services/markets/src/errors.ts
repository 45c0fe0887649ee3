import { defineErrors } from "@app/core";

/** The markets service's own error codes, besides the platform's. */
export class MarketsError extends defineErrors({
  INVALID_REF: 400,
  INVALID_ORDER: 400,
  INVALID_OUTCOME: 400,
  EVENT_NOT_FOUND: 404,
  TOKEN_NOT_FOUND: 404,
  MARKET_NOT_FOUND: 404,
  MARKET_CLOSED: 409,
  MARKET_ALREADY_RESOLVED: 409,
  INSUFFICIENT_FUNDS: 409,
  INSUFFICIENT_SHARES: 409,
  NO_LIQUIDITY: 409,
}) {}

import { defineErrors } from "@app/core";

/** The fortune service's own error codes, besides the platform's. */
export class FortuneError extends defineErrors({
  CHARGE_OVER_CAP: 400,
  /** Pay (x402, MPP) or sign in (SIWX) first: the 402's headers and body say how. */
  PAYMENT_REQUIRED: 402,
  FAVORITES_LIMIT: 409,
  FAVORITE_EXISTS: 409,
  /** A settlement was broadcast and is not confirmed yet: retry with the same authorisation or key. */
  SETTLEMENT_PENDING: 503,
  /** The facilitator or payment network cannot be reached; nothing was charged. */
  PAYMENTS_UNAVAILABLE: 503,
}) {}

/** How long a payer is asked to wait before retrying a payment the chain or facilitator holds up. */
export const RETRY_PAYMENT_SECONDS = 5;

/** 503: the payment service (facilitator) cannot be reached; nothing was charged. */
export function paymentsUnavailable(): FortuneError {
  return new FortuneError(
    "PAYMENTS_UNAVAILABLE",
    "The payment service cannot be reached; nothing was charged. Retry shortly.",
    {},
    { "Retry-After": String(RETRY_PAYMENT_SECONDS) },
  );
}

import { encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { FortuneError } from "../errors.ts";

/** A 402 in its final form: the headers' values and the JSON body's text. */
export type Challenge = { paymentRequiredHeader: string; mpp: string[]; body: string };

/**
 * Serialises a 402: the x402 challenge (`PAYMENT-REQUIRED`), the MPP challenges
 * (`WWW-Authenticate: Payment …`) and a JSON body: the x402 `PaymentRequired`, or a
 * `{error, message}` body when a sign-in failed.
 */
export function challengeOf(x402: PaymentRequired, mpp: string[], body?: Record<string, unknown>): Challenge {
  return {
    paymentRequiredHeader: encodePaymentRequiredHeader(x402),
    mpp,
    body: JSON.stringify(body ?? x402),
  };
}

/**
 * A 402 challenge, thrown by the payment gate and answered by the platform's error handler: never
 * cached by intermediaries, the x402 challenge in `PAYMENT-REQUIRED`, the MPP challenges in
 * `WWW-Authenticate` (one field, comma-separated, as a fetch client reads several), and the
 * challenge's own body, byte for byte, where other errors have `{error, message}`.
 */
export class PaymentRequiredError extends FortuneError {
  readonly challenge: Challenge;

  constructor(challenge: Challenge, message: string) {
    super("PAYMENT_REQUIRED", message, {}, paymentRequiredHeaders(challenge));
    this.challenge = challenge;
  }

  override toJson(): string {
    return this.challenge.body;
  }
}

function paymentRequiredHeaders(challenge: Challenge): Record<string, string> {
  const headers: Record<string, string> = {
    "Cache-Control": "no-store",
    "PAYMENT-REQUIRED": challenge.paymentRequiredHeader,
  };
  if (challenge.mpp.length > 0) headers["WWW-Authenticate"] = challenge.mpp.join(", ");
  return headers;
}

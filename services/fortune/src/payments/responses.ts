import { setResponseHeader } from "@app/core";
import { encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import type { Context } from "hono";

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

/** Answers with a 402 challenge, never cached by intermediaries. */
export function paymentRequired(c: Context, challenge: Challenge): Response {
  setResponseHeader(c, "Cache-Control", "no-store");
  setResponseHeader(c, "PAYMENT-REQUIRED", challenge.paymentRequiredHeader);
  if (challenge.mpp.length > 0) setResponseHeader(c, "WWW-Authenticate", challenge.mpp);
  return c.body(challenge.body, 402, { "Content-Type": "application/json" });
}

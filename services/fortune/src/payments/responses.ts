import { encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import type { Context } from "hono";

/**
 * A 402 carrying the x402 challenge (`PAYMENT-REQUIRED`), the MPP challenges
 * (`WWW-Authenticate: Payment …`) and a JSON body: the x402 `PaymentRequired`, or a
 * `{error, message}` body when a sign-in failed.
 */
export function paymentRequired(
  c: Context,
  input: { x402?: PaymentRequired; mpp?: string[]; body?: Record<string, unknown> },
): Response {
  c.header("Cache-Control", "no-store");
  if (input.x402) c.header("PAYMENT-REQUIRED", encodePaymentRequiredHeader(input.x402));
  for (const challenge of input.mpp ?? []) c.header("WWW-Authenticate", challenge, { append: true });
  const body = input.body ?? input.x402 ?? { error: "payment_required", message: "Payment required." };
  return c.json(body, 402);
}

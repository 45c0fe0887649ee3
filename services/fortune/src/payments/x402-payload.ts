import { createHash } from "node:crypto";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { PaymentPayloadV2Schema } from "@x402/core/schemas";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";

const MAX_HEADER_BYTES = 16 * 1024;

/** Decodes a `PAYMENT-SIGNATURE` header; a reason string when it is not a valid x402 v2 payload. */
export function decodePaymentHeader(header: string): PaymentPayload | { invalid: string } {
  if (header.length > MAX_HEADER_BYTES) return { invalid: "invalid_payment_payload: header too large" };
  let decoded: unknown;
  try {
    decoded = decodePaymentSignatureHeader(header);
  } catch {
    return { invalid: "invalid_payment_payload: not base64 JSON" };
  }
  const parsed = PaymentPayloadV2Schema.safeParse(decoded);
  if (!parsed.success) return { invalid: "invalid_payment_payload: not an x402 v2 payment payload" };
  return parsed.data as PaymentPayload;
}

const same = (a: unknown, b: unknown) => String(a).toLowerCase() === String(b).toLowerCase();

/**
 * Why the requirements a client signed for differ from what this route asks, or
 * undefined when they match (scheme, network, asset, payee, amount, timeout).
 */
export function requirementsMismatch(
  signed: PaymentRequirements,
  expected: PaymentRequirements,
): string | undefined {
  if (signed.scheme !== expected.scheme) return `invalid_scheme: expected ${expected.scheme}`;
  if (signed.network !== expected.network) return `invalid_network: expected ${expected.network}`;
  if (!same(signed.asset, expected.asset)) return `invalid_asset: expected ${expected.asset}`;
  if (!same(signed.payTo, expected.payTo)) return `invalid_pay_to: expected ${expected.payTo}`;
  if (!/^\d+$/.test(String(signed.amount))) return "invalid_amount";
  if (BigInt(signed.amount) < BigInt(expected.amount))
    return `amount_below_price: ${expected.amount} required`;
  if (BigInt(signed.amount) !== BigInt(expected.amount)) return `invalid_amount: expected ${expected.amount}`;
  return undefined;
}

type Authorization = { from?: string; nonce?: string };

/**
 * Names one payment authorisation: chain, token, payer and the authorisation's
 * own nonce (EIP-3009 or Permit2), so copies of it, however re-encoded, collide.
 */
export function claimKeyOf(payload: PaymentPayload): string {
  const body = payload.payload as { authorization?: Authorization; permit2Authorization?: Authorization };
  const auth = body.authorization ?? body.permit2Authorization;
  const kind = body.authorization ? "eip3009" : "permit2";
  if (auth?.from && auth.nonce !== undefined) {
    return [payload.accepted.network, kind, payload.accepted.asset, auth.from, String(auth.nonce)]
      .join(":")
      .toLowerCase();
  }
  return `sig:${createHash("sha256").update(JSON.stringify(payload.payload)).digest("hex")}`;
}

/** The payer named inside the authorisation, before any facilitator has looked at it. */
export function payerOf(payload: PaymentPayload): string | undefined {
  const body = payload.payload as { authorization?: Authorization; permit2Authorization?: Authorization };
  return (body.authorization ?? body.permit2Authorization)?.from;
}

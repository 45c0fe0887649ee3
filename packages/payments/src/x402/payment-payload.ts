import { z } from "@app/core";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { PaymentPayloadV2Schema } from "@x402/core/schemas";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { type Refusal, refusal } from "../refusal.ts";

const MAX_HEADER_BYTES = 16 * 1024;

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const MAX_UINT256 = 2n ** 256n - 1n;
const uint256 = z
  .string()
  .regex(/^\d{1,78}$/)
  .refine((value) => /^\d{1,78}$/.test(value) && BigInt(value) <= MAX_UINT256, "must fit in 256 bits");
const bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
/** An ECDSA signature, or a smart wallet's (ERC-1271 / ERC-6492) longer one. */
const signature = z
  .string()
  .regex(/^0x(?:[0-9a-fA-F]{2})+$/)
  .max(8 * 1024);

/** EIP-3009 `transferWithAuthorization` (x402 `exact`). */
const Eip3009Payload = z.strictObject({
  signature,
  authorization: z.strictObject({
    from: address,
    to: address,
    value: uint256,
    validAfter: uint256,
    validBefore: uint256,
    nonce: bytes32,
  }),
});

const permit2Authorization = <Witness extends z.ZodType>(witness: Witness) =>
  z.strictObject({
    from: address,
    permitted: z.strictObject({ token: address, amount: uint256 }),
    spender: address,
    nonce: uint256,
    deadline: uint256,
    witness,
  });

/** Permit2 `permitWitnessTransferFrom` through the x402 exact proxy. */
const ExactPermit2Payload = z.strictObject({
  signature,
  permit2Authorization: permit2Authorization(z.strictObject({ to: address, validAfter: uint256 })),
});

/** Permit2 through the x402 upto proxy: the witness names the facilitator allowed to settle. */
const UptoPermit2Payload = z.strictObject({
  signature,
  permit2Authorization: permit2Authorization(
    z.strictObject({ to: address, facilitator: address, validAfter: uint256 }),
  ),
});

/**
 * The one authorisation a payment carries, named by the field the facilitator verifies: a payload
 * carrying both an EIP-3009 and a Permit2 authorisation is refused, so what is claimed is what
 * is paid.
 */
export type Authorization =
  | { kind: "eip3009"; from: string; nonce: string; fields: z.infer<typeof Eip3009Payload> }
  | {
      kind: "permit2";
      from: string;
      nonce: string;
      fields: z.infer<typeof ExactPermit2Payload> | z.infer<typeof UptoPermit2Payload>;
    };

/** A decoded x402 payment: the payload as sent (for the facilitator) and its checked authorisation. */
export type X402Payment = {
  payload: PaymentPayload;
  authorization: Authorization;
  /** Names this authorisation across re-encodings and instances: one authorisation, one handler run. */
  claimKey: string;
};

/**
 * Decodes a `PAYMENT-SIGNATURE` header into an x402 v2 payment whose EVM payload has exactly the
 * shape its scheme defines (every field typed), or the refusal to answer with.
 */
export function decodePayment(header: string): X402Payment | Refusal {
  if (header.length > MAX_HEADER_BYTES) {
    return refusal("invalid_payment_payload", "The payment header is larger than 16 KiB.");
  }
  let decoded: unknown;
  try {
    decoded = decodePaymentSignatureHeader(header);
  } catch {
    return refusal("invalid_payment_payload", "The payment header is not base64-encoded JSON.");
  }
  const parsed = PaymentPayloadV2Schema.safeParse(decoded);
  if (!parsed.success) {
    return refusal("invalid_payment_payload", "The payment header is not an x402 version 2 payment payload.");
  }
  const payload = parsed.data as PaymentPayload;
  const authorization = authorizationOf(payload);
  if (!authorization) {
    return refusal(
      "invalid_payment_payload",
      `The payment payload does not match the ${payload.accepted.scheme} scheme's EVM payload ` +
        "(exactly one authorisation, every field of its type).",
    );
  }
  return { payload, authorization, claimKey: claimKeyOf(payload, authorization) };
}

function authorizationOf(payload: PaymentPayload): Authorization | undefined {
  if (payload.accepted.scheme === "upto") {
    const upto = UptoPermit2Payload.safeParse(payload.payload);
    return upto.success ? permit2(upto.data) : undefined;
  }
  const eip3009 = Eip3009Payload.safeParse(payload.payload);
  if (eip3009.success) {
    const { from, nonce } = eip3009.data.authorization;
    return { kind: "eip3009", from: from.toLowerCase(), nonce, fields: eip3009.data };
  }
  const exact = ExactPermit2Payload.safeParse(payload.payload);
  return exact.success ? permit2(exact.data) : undefined;
}

function permit2(
  fields: z.infer<typeof ExactPermit2Payload> | z.infer<typeof UptoPermit2Payload>,
): Authorization {
  const { from, nonce } = fields.permit2Authorization;
  return { kind: "permit2", from: from.toLowerCase(), nonce, fields };
}

/**
 * Chain, kind, token, payer and the authorisation's own nonce, all signed: copies of one
 * authorisation collide however they are re-encoded.
 */
function claimKeyOf(payload: PaymentPayload, authorization: Authorization): string {
  const token =
    authorization.kind === "permit2"
      ? authorization.fields.permit2Authorization.permitted.token
      : payload.accepted.asset;
  return [payload.accepted.network, authorization.kind, token, authorization.from, authorization.nonce]
    .join(":")
    .toLowerCase();
}

const same = (a: unknown, b: unknown) => String(a).toLowerCase() === String(b).toLowerCase();

/**
 * Why the requirements a client signed for differ from what this route asks, or undefined when
 * they match (scheme, network, asset, payee, amount).
 */
export function requirementsMismatch(
  signed: PaymentRequirements,
  expected: PaymentRequirements,
): Refusal | undefined {
  if (signed.scheme !== expected.scheme) {
    return refusal("invalid_scheme", `This route is paid with the ${expected.scheme} scheme.`);
  }
  if (signed.network !== expected.network) {
    return refusal("invalid_network", `This route is paid on ${expected.network}.`);
  }
  if (!same(signed.asset, expected.asset)) {
    return refusal("invalid_asset", `This route is paid in the token ${expected.asset}.`);
  }
  if (!same(signed.payTo, expected.payTo)) {
    return refusal("invalid_pay_to", `This route is paid to ${expected.payTo}.`);
  }
  if (!/^\d{1,78}$/.test(String(signed.amount))) {
    return refusal("invalid_amount", "The signed amount is not a whole number of atomic units.");
  }
  if (BigInt(signed.amount) < BigInt(expected.amount)) {
    return refusal("amount_below_price", `This route asks for ${expected.amount} atomic units.`);
  }
  if (BigInt(signed.amount) !== BigInt(expected.amount)) {
    return refusal("invalid_amount", `This route asks for exactly ${expected.amount} atomic units.`);
  }
  return undefined;
}

import type { SettlementOutcome } from "@app/payments";
import {
  type Authorization,
  buildPaymentRequired,
  decodePayment,
  isSignedByPayer,
  type SettlementLookup,
  signedTypedData,
  type X402Payment,
  type X402Rail,
  type X402Scheme,
} from "@app/payments";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from "@x402/core/types";
import { type Hex, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

/** What the fake facilitator answers a settlement with. */
export type FakeSettlement = "settled" | "refused" | "pending" | "unreachable";

export const FAKE_TRANSACTION = `0x${"ab".repeat(32)}`;

/**
 * An x402 rail with no chain behind it, for tests: it verifies as a facilitator would what needs
 * no chain (the payer's signature, and that the authorisation was not settled before), settles as
 * told (`settlement`), and reports what `chainSays` for settlements it left pending.
 */
export class FakeX402Rail implements X402Rail {
  readonly network = "eip155:1337" as const;
  settlement: FakeSettlement = "settled";
  chainSays: SettlementOutcome = "pending";
  /** When true the facilitator cannot be reached: requirements and verification fail. */
  facilitatorDown = false;
  verifications = 0;
  settlements = 0;
  /** Authorisations the fake chain has seen used. */
  private readonly spent = new Set<string>();
  /** The settlements looked up on the chain. */
  readonly lookups: SettlementLookup[] = [];

  async requirements(scheme: X402Scheme, atomic: bigint): Promise<PaymentRequirements> {
    if (this.facilitatorDown) throw new Error("fetch failed: connect ECONNREFUSED 127.0.0.1:4021");
    return {
      scheme,
      network: this.network,
      asset: "0x00000000000000000000000000000000000000a1",
      amount: atomic.toString(),
      payTo: "0x00000000000000000000000000000000000000b2",
      maxTimeoutSeconds: 300,
      extra: { name: "USD Coin", version: "1" },
    };
  }

  paymentRequired = buildPaymentRequired;

  async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
    this.verifications += 1;
    if (this.facilitatorDown) throw new Error("fetch failed: connect ECONNREFUSED 127.0.0.1:4021");
    const payment = decodePayment(encodePaymentSignatureHeader(payload));
    if ("reason" in payment) return { isValid: false, invalidReason: "invalid_payload" };
    const payer = payment.authorization.from;
    if (!isSignedByPayer(payment.authorization, requirements)) {
      return { isValid: false, invalidReason: "invalid_signature", payer };
    }
    if (this.spent.has(payment.claimKey))
      return { isValid: false, invalidReason: "nonce_already_used", payer };
    return { isValid: true, payer };
  }

  async settle(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    atomic: bigint,
  ): Promise<SettleResponse> {
    this.settlements += 1;
    const payment = decodePayment(encodePaymentSignatureHeader(payload));
    if (!("reason" in payment) && this.settlement !== "refused") this.spent.add(payment.claimKey);
    const network = requirements.network;
    switch (this.settlement) {
      case "unreachable":
        throw new Error("connect ECONNREFUSED 127.0.0.1:8545");
      case "refused":
        return { success: false, errorReason: "insufficient_funds", transaction: "", network };
      case "pending":
        return { success: false, errorReason: "settlement_pending", transaction: FAKE_TRANSACTION, network };
      default:
        return { success: true, transaction: FAKE_TRANSACTION, network, amount: atomic.toString() };
    }
  }

  isSignedByPayer(payment: X402Payment, requirements: PaymentRequirements): boolean {
    return isSignedByPayer(payment.authorization, requirements);
  }

  async settlementOutcome(lookup: SettlementLookup): Promise<SettlementOutcome> {
    this.lookups.push(lookup);
    return this.chainSays;
  }
}

let nonces = 0;

/**
 * A `PAYMENT-SIGNATURE` header paying `atomic` on a rail, signed by `privateKey` as the official
 * client signs: EIP-3009 for `exact`, Permit2 through the upto proxy for `upto`. `tamper` edits
 * the payload before encoding (to forge one).
 */
export async function signedPaymentHeader(
  rail: X402Rail,
  scheme: X402Scheme,
  atomic: bigint,
  privateKey: Hex,
  tamper: (payload: Record<string, unknown>) => void = () => undefined,
): Promise<string> {
  const accepted = await rail.requirements(scheme, atomic);
  const account = privateKeyToAccount(privateKey);
  nonces += 1;
  const authorization: Authorization =
    scheme === "exact"
      ? {
          kind: "eip3009",
          from: account.address,
          nonce: toHex(nonces, { size: 32 }),
          fields: {
            signature: "0x",
            authorization: {
              from: account.address,
              to: accepted.payTo,
              value: accepted.amount,
              validAfter: "0",
              validBefore: "9999999999",
              nonce: toHex(nonces, { size: 32 }),
            },
          },
        }
      : {
          kind: "permit2",
          from: account.address,
          nonce: String(nonces),
          fields: {
            signature: "0x",
            permit2Authorization: {
              from: account.address,
              permitted: { token: accepted.asset, amount: accepted.amount },
              spender: "0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002",
              nonce: String(nonces),
              deadline: "9999999999",
              witness: {
                to: accepted.payTo,
                facilitator: "0x00000000000000000000000000000000000000f1",
                validAfter: "0",
              },
            },
          },
        };
  const fields = authorization.fields as Record<string, unknown>;
  fields.signature = await account.signTypedData(signedTypedData(authorization, accepted));
  tamper(fields);
  return encodePaymentSignatureHeader({ x402Version: 2, accepted, payload: fields });
}

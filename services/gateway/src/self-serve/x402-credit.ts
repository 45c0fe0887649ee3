import type { Refusal } from "@app/payments";
import {
  authorizationFacts,
  decodePayment,
  isRefusal,
  refusal,
  requirementsMismatch,
  type X402Payment,
} from "@app/payments";
import { encodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequirements, SettleResponse, VerifyResponse } from "@x402/core/types";
import { paymentsUnavailable, settlementPending } from "./challenges.ts";
import { creditAnswer } from "./credit-answer.ts";
import type { CreditKey } from "./credit-keys.ts";
import type { CreditAnswer, CreditRequest, PurchaseSupport } from "./purchase.ts";

const NOT_FRESH = refusal(
  "replay_needs_fresh_authorization",
  "A stored answer goes again only to the payment that bought it, or to a new unspent authorisation from the same wallet.",
);
const ALREADY_USED = refusal(
  "payment_already_used",
  "This authorisation was already presented; sign a new one.",
);

/**
 * Buys credit with an x402 `exact` payment, in the phases of `x402ResourceServer`: decode and
 * match the requirements for the amount asked, check that the wallet it names signed it, find
 * that wallet's account, look up the `Idempotency-Key`, verify, claim the payment by its
 * settlement reference (one authorisation is sent and credited once, however many copies arrive),
 * settle, and only then credit. A payment the facilitator refuses to settle credits nothing (402
 * `settlement_failed`); one sent and not yet confirmed is 503 `SETTLEMENT_PENDING` and is credited
 * by the reconciler once the chain confirms it.
 */
export async function buyWithX402(
  support: PurchaseSupport,
  input: CreditRequest,
  header: string,
): Promise<CreditAnswer> {
  const { deps } = support;
  const payment = decodePayment(header);
  if (isRefusal(payment)) throw await support.refuse(input, payment);
  const expected = await deps.challenges.requirements(input.amount);
  const mismatch = requirementsMismatch(payment.payload.accepted, expected);
  if (mismatch) throw await support.refuse(input, mismatch);
  // Anyone can write an authorisation naming any wallet: until its payer's signature is shown,
  // whether that wallet owns an account (404 ACCOUNT_NOT_FOUND) is nobody's to learn.
  const unsigned = await unsignedByPayer(support, input, payment, expected);
  if (unsigned) throw await support.refuse(input, unsigned);

  const account = await support.accountOf(payment.authorization.from);
  const reference = payment.claimKey;
  const key = await support.beginKey(account.id, input, reference);
  if (key.kind === "replay") {
    const same = key.reference === reference && deps.x402.isSignedByPayer(payment, expected);
    if (!same && !(await isFreshFromPayer(support, input, payment, expected))) {
      throw await support.refuse(input, NOT_FRESH);
    }
    return { response: key.stored, replayed: true };
  }
  return settleAndCredit(support, input, payment, expected, account.id, key);
}

/**
 * Why the facilitator's verification does not show the payment as its payer's, valid and unspent;
 * undefined when it does.
 */
function verificationRefusal(verification: VerifyResponse, payment: X402Payment): Refusal | undefined {
  if (verification.isValid && verification.payer?.toLowerCase() === payment.authorization.from) {
    return undefined;
  }
  const reason = verification.isValid ? "invalid_payer" : (verification.invalidReason ?? "invalid_payment");
  return refusal(reason, "The facilitator did not accept this payment.");
}

/** The facilitator's verification of the payment; 503 `PAYMENTS_UNAVAILABLE` when it does not answer. */
function verifyWithFacilitator(
  support: PurchaseSupport,
  input: CreditRequest,
  payment: X402Payment,
  expected: PaymentRequirements,
): Promise<VerifyResponse> {
  return support.deps.x402.verify(payment.payload, expected).catch((error: Error) => {
    support.deps.logger.warn(
      { requestId: input.requestId, err: error },
      "the x402 facilitator did not verify",
    );
    throw paymentsUnavailable();
  });
}

/**
 * Why the payment is not shown to be signed by the wallet it names; undefined when it is. An
 * EOA's signature is checked offline; any other (a contract wallet's) is asked of the facilitator.
 */
async function unsignedByPayer(
  support: PurchaseSupport,
  input: CreditRequest,
  payment: X402Payment,
  expected: PaymentRequirements,
): Promise<Refusal | undefined> {
  if (support.deps.x402.isSignedByPayer(payment, expected)) return undefined;
  return verificationRefusal(await verifyWithFacilitator(support, input, payment, expected), payment);
}

/** Whether the payer also signed this authorisation, still valid and unspent (the facilitator's verify). */
async function isFreshFromPayer(
  support: PurchaseSupport,
  input: CreditRequest,
  payment: X402Payment,
  expected: PaymentRequirements,
): Promise<boolean> {
  const verification = await verifyWithFacilitator(support, input, payment, expected);
  return verificationRefusal(verification, payment) === undefined;
}

async function settleAndCredit(
  support: PurchaseSupport,
  input: CreditRequest,
  payment: X402Payment,
  expected: PaymentRequirements,
  accountId: string,
  key: CreditKey,
): Promise<CreditAnswer> {
  const { deps, keys } = support;
  const reference = payment.claimKey;
  await support.refuseIfPresented(input, key, reference);
  const verification = await verifyWithFacilitator(support, input, payment, expected).catch(
    async (error: unknown) => {
      await keys.release(key);
      throw error;
    },
  );
  const unaccepted = verificationRefusal(verification, payment);
  if (unaccepted) throw await support.releaseAndRefuse(input, key, unaccepted);
  const claimed = await deps.payments.claim({
    reference,
    accountId,
    protocol: "x402",
    amountMicro: input.amount.micro,
    authorization: authorizationFacts(payment.authorization, expected.asset),
  });
  if (!claimed) throw await support.releaseAndRefuse(input, key, ALREADY_USED);
  await support.pinBeforeSending(key, reference);
  const settlement = await deps.x402
    .settle(payment.payload, expected, input.amount.micro)
    .catch((error: Error): SettleResponse | undefined => {
      deps.logger.warn(
        { requestId: input.requestId, err: error },
        "the x402 facilitator did not answer a credit's settlement; it may have been broadcast",
      );
      return undefined;
    });
  if (!settlement || (!settlement.success && settlement.errorReason === "settlement_pending")) {
    const transaction = settlement?.transaction || null;
    await deps.payments.sent(reference, transaction);
    deps.logger.warn(
      { requestId: input.requestId, transaction },
      "a credit's settlement is not confirmed yet",
    );
    throw settlementPending(transaction);
  }
  if (!settlement.success) {
    // The facilitator's reason code only: its message may carry RPC URLs and request bodies.
    const reason = (settlement.errorReason ?? "settlement_failed").split(/[:\s]/)[0] as string;
    await deps.payments.fail(reference, `settlement_failed: ${reason}`);
    throw await support.releaseAndRefuse(
      input,
      key,
      refusal("settlement_failed", `The payment did not settle (${reason}); nothing was credited.`),
    );
  }
  const response = await support.creditSettled(input, reference, settlement.transaction, (balance) =>
    creditAnswer(input.amount.micro, balance, settlement.transaction, {
      "PAYMENT-RESPONSE": encodePaymentResponseHeader(settlement),
    }),
  );
  await keys.keep(key, response);
  return { response, replayed: false };
}

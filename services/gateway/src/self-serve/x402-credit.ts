import { requestInProgress } from "@app/edge";
import {
  authorizationFacts,
  decodePayment,
  isRefusal,
  refusal,
  requirementsMismatch,
  type X402Payment,
} from "@app/payments";
import { encodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequirements, SettleResponse } from "@x402/core/types";
import { paymentsUnavailable, settlementPending } from "./challenges.ts";
import { creditAnswer } from "./credit-answer.ts";
import { beginCreditKey, type CreditKey } from "./credit-keys.ts";
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
 * match the requirements for the amount asked, find the paying wallet's account, look up the
 * `Idempotency-Key`, verify, claim the payment by its settlement reference (one authorisation is
 * sent and credited once, however many copies arrive), settle, and only then credit. A payment the
 * facilitator refuses to settle credits nothing (402 `settlement_failed`); one sent and not yet
 * confirmed is 503 `SETTLEMENT_PENDING` and is credited by the reconciler once the chain confirms it.
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

  const account = await support.accountOf(payment.authorization.from);
  const reference = payment.claimKey;
  const key = await beginCreditKey(
    deps.creditKeys,
    account.id,
    input.idempotencyKey,
    input.amount,
    reference,
  );
  if (key.kind === "replay") {
    const same = key.reference === reference && deps.x402.isSignedByPayer(payment, expected);
    if (!same && !(await isFreshFromPayer(support, input, payment, expected))) {
      throw await support.refuse(input, NOT_FRESH);
    }
    return { response: key.stored, replayed: true };
  }
  return settleAndCredit(support, input, payment, expected, account.id, key);
}

/** Whether the payer also signed this authorisation, still valid and unspent (the facilitator's verify). */
async function isFreshFromPayer(
  support: PurchaseSupport,
  input: CreditRequest,
  payment: X402Payment,
  expected: PaymentRequirements,
): Promise<boolean> {
  const verification = await support.deps.x402.verify(payment.payload, expected).catch((error: Error) => {
    support.deps.logger.warn(
      { requestId: input.requestId, err: error },
      "the x402 facilitator did not verify",
    );
    throw paymentsUnavailable();
  });
  return verification.isValid && verification.payer?.toLowerCase() === payment.authorization.from;
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
  const known = await deps.payments.get(reference);
  if (known) {
    await keys.release(key);
    throw await support.alreadyPresented(input, known);
  }
  const verification = await deps.x402.verify(payment.payload, expected).catch(async (error: Error) => {
    deps.logger.warn({ requestId: input.requestId, err: error }, "the x402 facilitator did not verify");
    await keys.release(key);
    throw paymentsUnavailable();
  });
  if (!verification.isValid || verification.payer?.toLowerCase() !== payment.authorization.from) {
    await keys.release(key);
    const reason = verification.isValid ? "invalid_payer" : (verification.invalidReason ?? "invalid_payment");
    throw await support.refuse(input, refusal(reason, "The facilitator did not accept this payment."));
  }
  const claimed = await deps.payments.claim({
    reference,
    accountId,
    protocol: "x402",
    amountMicro: input.amount.micro,
    authorization: authorizationFacts(payment.authorization, expected.asset),
  });
  if (!claimed) {
    await keys.release(key);
    throw await support.refuse(input, ALREADY_USED);
  }
  // The settlement may land after this request is gone: its key waits for the chain from here.
  if (!(await keys.pin(key))) {
    await deps.payments.fail(reference, "not sent: its Idempotency-Key was taken over");
    throw requestInProgress();
  }
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
    await keys.release(key);
    throw await support.refuse(
      input,
      refusal("settlement_failed", `The payment did not settle (${reason}); nothing was credited.`),
    );
  }
  const credited = await deps.payments
    .credit(reference, settlement.transaction)
    .catch(async (error: unknown) => {
      // Paid and not credited: the reconciler credits it from the chain (the row keeps the transaction).
      await deps.payments.sent(reference, settlement.transaction).catch(() => undefined);
      throw error;
    });
  const balance = credited?.balanceMicro ?? (await deps.payments.creditedBalance(reference)) ?? 0n;
  const response = creditAnswer(input.amount.micro, balance, settlement.transaction, {
    "PAYMENT-RESPONSE": encodePaymentResponseHeader(settlement),
  });
  await keys.keep(key, response);
  return { response, replayed: false };
}

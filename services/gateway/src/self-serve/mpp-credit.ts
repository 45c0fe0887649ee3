import { refusal } from "@app/payments";
import { settlementPending } from "./challenges.ts";
import { creditAnswer } from "./credit-answer.ts";
import type { CreditAnswer, CreditRequest, PurchaseSupport } from "./purchase.ts";

const NO_PAYER = refusal(
  "mpp_invalid_credential",
  "The MPP credential carries no signed transaction or confirmed transfer naming its payer.",
);
const NOT_FRESH = refusal(
  "replay_needs_fresh_credential",
  "A stored answer goes again only to a new signed transaction from the same wallet, not yet on chain.",
);
const ALREADY_PRESENTED = refusal(
  "mpp_credential_already_presented",
  "This MPP credential is already being charged or was charged; sign a new one.",
);

/**
 * Buys credit with an MPP one-shot charge (`tempo.charge` for the amount asked). The payer comes
 * from what can be verified (the signed transaction, or the transfer on chain), never from what
 * the credential claims, and its account is the one credited; the `Idempotency-Key` is looked up
 * before anything is charged. The payment is claimed by its transaction before the charge is
 * sent, and credited only once the charge settled: a refused charge credits nothing (402), one
 * whose outcome is unknown is 503 `SETTLEMENT_PENDING` and is credited by the reconciler once the
 * chain shows it.
 */
export async function buyWithMpp(support: PurchaseSupport, input: CreditRequest): Promise<CreditAnswer> {
  const { deps, keys } = support;
  const credential = await deps.mpp.payerOf(input.request);
  if (!credential) throw await support.refuse(input, NO_PAYER);
  const account = await support.accountOf(credential.payer);
  const reference = `mpp:${deps.mpp.network}:${credential.credentialId}`;
  const key = await support.beginKey(account.id, input, reference);
  if (key.kind === "replay") {
    // A transaction on chain is public: only a signed one not broadcast yet proves its payer asks.
    if (!(await deps.mpp.isUnspent(credential))) throw await support.refuse(input, NOT_FRESH);
    return { response: key.stored, replayed: true };
  }
  await support.refuseIfPresented(input, key, reference);
  const claimed = await deps.payments.claim({
    reference,
    accountId: account.id,
    protocol: "mpp",
    amountMicro: input.amount.micro,
    transaction: credential.credentialId,
  });
  if (!claimed) throw await support.releaseAndRefuse(input, key, ALREADY_PRESENTED);
  await support.pinBeforeSending(key, reference);
  const outcome = await deps.mpp.charge(input.request, input.amount.usd).catch((error: unknown) => {
    deps.logger.error(
      { requestId: input.requestId, err: error },
      "an MPP charge for credit may have been sent: the reconciler will ask the chain",
    );
    return undefined;
  });
  if (!outcome) throw settlementPending(credential.credentialId);
  if (outcome.kind === "refused") {
    await deps.payments.fail(reference, outcome.refusal.reason);
    throw await support.releaseAndRefuse(input, key, outcome.refusal);
  }
  const response = await support.creditSettled(input, reference, outcome.reference, (balance) =>
    creditAnswer(input.amount.micro, balance, outcome.reference, outcome.receiptHeaders),
  );
  await keys.keep(key, response);
  return { response, replayed: false };
}

import type { Logger } from "@app/core";
import { type IdempotencyStore, requestInProgress, type StoredResponse } from "@app/edge";
import { type MppRail, type Refusal, refusal, type X402Rail } from "@app/payments";
import type { CreditPayment, CreditPayments } from "../store/credit-payments.ts";
import type { WalletAccount, WalletAccounts } from "../store/wallet-accounts.ts";
import { accountNotFound } from "./accounts.ts";
import { type SelfServeChallenges, settlementPending } from "./challenges.ts";
import type { CreditAmount } from "./credit-amount.ts";
import { beginCreditKey, type CreditKey, CreditKeyEnd } from "./credit-keys.ts";

/** What a credit purchase is made of; built once in `service.ts` (or a test). */
export type PurchaseDeps = {
  x402: X402Rail;
  mpp: MppRail;
  wallets: WalletAccounts;
  payments: CreditPayments;
  /** The credit purchases' keys ({@link creditKeysStore}). */
  creditKeys: IdempotencyStore;
  challenges: SelfServeChallenges;
  logger: Logger;
};

/** One request to buy credit, as the route hands it over. */
export type CreditRequest = {
  /** The request as it came (MPP reads its credential there; challenges are bound to it). */
  request: Request;
  path: string;
  amount: CreditAmount;
  idempotencyKey?: string;
  /** For log lines. */
  requestId?: string;
};

/** A purchase's answer: fresh, or the one stored for its `Idempotency-Key`, replayed. */
export type CreditAnswer = { response: StoredResponse; replayed: boolean };

/** The parts every payment flow of a purchase shares. */
export class PurchaseSupport {
  readonly keys: CreditKeyEnd;

  constructor(readonly deps: PurchaseDeps) {
    this.keys = new CreditKeyEnd(deps.creditKeys, deps.logger);
  }

  /** The account the paying wallet owns: the one a payment credits, whoever presents it. */
  async accountOf(payer: string): Promise<WalletAccount> {
    const account = await this.deps.wallets.byWallet(payer);
    if (!account) throw accountNotFound(payer);
    return account;
  }

  /** The 402 refusing this payment, to throw. */
  refuse(input: CreditRequest, refused: Refusal): Promise<Error> {
    return this.deps.challenges.paymentRequired(input.request, input.path, input.amount, refused);
  }

  /** The 402 refusing this payment, to throw, its key released first: nothing was taken. */
  async releaseAndRefuse(input: CreditRequest, key: CreditKey, refused: Refusal): Promise<Error> {
    await this.keys.release(key);
    return this.refuse(input, refused);
  }

  /** The purchase's `Idempotency-Key`, begun in the paying account for the payment `reference` names. */
  beginKey(accountId: string, input: CreditRequest, reference: string): Promise<CreditKey> {
    return beginCreditKey(this.deps.creditKeys, accountId, input.idempotencyKey, input.amount, reference);
  }

  /** Throws the refusal of a payment presented before ({@link alreadyPresented}), its key released. */
  async refuseIfPresented(input: CreditRequest, key: CreditKey, reference: string): Promise<void> {
    const known = await this.deps.payments.get(reference);
    if (!known) return;
    await this.keys.release(key);
    throw await this.alreadyPresented(input, known);
  }

  /**
   * Pins the key of a claimed payment just before it is sent (its outcome may land after this
   * request is gone); when another request took the key over, the payment is failed unsent (409).
   */
  async pinBeforeSending(key: CreditKey, reference: string): Promise<void> {
    if (await this.keys.pin(key)) return;
    await this.deps.payments.fail(reference, "not sent: its Idempotency-Key was taken over");
    throw requestInProgress();
  }

  /**
   * Credits a payment the chain settled in `transaction` and builds its answer from the balance it
   * left. The payer's money has moved by now: should the database fail here, the answer is never
   * a 500 but 503 `SETTLEMENT_PENDING`, the cause logged; the payment stays `pending` (its
   * transaction written when it can be) and the reconciler credits it from the chain, once, and
   * gives its key the answer.
   */
  async creditSettled(
    input: CreditRequest,
    reference: string,
    transaction: string | null,
    answer: (balanceMicro: bigint) => StoredResponse,
  ): Promise<StoredResponse> {
    const { payments, logger } = this.deps;
    try {
      const credited = await payments.credit(reference, transaction);
      return answer(credited?.balanceMicro ?? (await payments.creditedBalance(reference)) ?? 0n);
    } catch (error) {
      logger.error(
        { requestId: input.requestId, transaction, err: error },
        "a settled payment for credit could not be credited: the reconciler will credit it",
      );
      await payments.sent(reference, transaction).catch(() => undefined);
      throw settlementPending(transaction);
    }
  }

  /**
   * A payment presented again (its settlement reference is known): never credited twice, whether
   * it was credited, failed, or is still being settled (then it is credited once, when it settles).
   */
  async alreadyPresented(input: CreditRequest, payment: CreditPayment): Promise<Error> {
    if (payment.state === "failed") {
      return this.refuse(
        input,
        refusal("settlement_failed", "This payment did not settle; nothing was credited."),
      );
    }
    const message =
      payment.state === "pending"
        ? "This payment is already being settled: it is credited once, when it settles; sign a new one to buy more."
        : `This payment was already credited${payment.transaction ? ` (transaction ${payment.transaction})` : ""}; sign a new one.`;
    const reason = payment.protocol === "mpp" ? "mpp_credential_already_presented" : "payment_already_used";
    return this.refuse(input, refusal(reason, message));
  }
}

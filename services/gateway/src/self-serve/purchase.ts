import type { Logger } from "@app/core";
import type { IdempotencyStore, StoredResponse } from "@app/edge";
import { type MppRail, type Refusal, refusal, type X402Rail } from "@app/payments";
import type { CreditPayment, CreditPayments } from "../store/credit-payments.ts";
import type { WalletAccount, WalletAccounts } from "../store/wallet-accounts.ts";
import { accountNotFound } from "./accounts.ts";
import type { SelfServeChallenges } from "./challenges.ts";
import type { CreditAmount } from "./credit-amount.ts";
import { CreditKeyEnd } from "./credit-keys.ts";

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

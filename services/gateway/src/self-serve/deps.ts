import type { Clock, Logger } from "@app/core";
import type { Database } from "@app/db";
import { type PaymentRails, SiwxAuthenticator } from "@app/payments";
import type { AccountStore } from "../store/accounts.ts";
import { CreditPayments } from "../store/credit-payments.ts";
import { WalletAccounts } from "../store/wallet-accounts.ts";
import { SelfServeChallenges } from "./challenges.ts";
import { creditKeysStore } from "./credit-keys.ts";
import { PurchaseSupport } from "./purchase.ts";

/** What the self-serve routes (accounts, keys, credits) are built from: a gateway with payment rails. */
export type SelfServeDeps = {
  siwx: SiwxAuthenticator;
  challenges: SelfServeChallenges;
  purchase: PurchaseSupport;
  wallets: WalletAccounts;
  accounts: AccountStore;
  payments: CreditPayments;
  clock: Clock;
  /** The public origin (SIWX domain and URI, 402 resources, discovery). */
  origin: () => URL;
  /** How MPP is paid here, as discovery names it. */
  mpp: { method: string; currency: string };
};

/** The self-serve dependencies of a gateway on `rails`, its sign-ins checked against `origin`. */
export function buildSelfServeDeps(
  db: Database,
  logger: Logger,
  parts: { rails: PaymentRails; accounts: AccountStore; clock: Clock; origin: () => URL },
): SelfServeDeps {
  const { rails, clock, origin } = parts;
  const siwx = new SiwxAuthenticator(db, {
    service: "gateway",
    spentNonces: "gateway.siwx_spent_nonces",
    origin,
    network: rails.x402.network,
    clock,
    nonceSecret: rails.secret,
  });
  const challenges = new SelfServeChallenges({ x402: rails.x402, mpp: rails.mpp, siwx, origin, logger });
  const wallets = new WalletAccounts(db, clock);
  const payments = new CreditPayments(db);
  const purchase = new PurchaseSupport({
    x402: rails.x402,
    mpp: rails.mpp,
    wallets,
    payments,
    creditKeys: creditKeysStore(db, clock),
    challenges,
    logger,
  });
  return {
    siwx,
    challenges,
    purchase,
    wallets,
    accounts: parts.accounts,
    payments,
    clock,
    origin,
    mpp: { method: "tempo", currency: rails.mppCurrency },
  };
}

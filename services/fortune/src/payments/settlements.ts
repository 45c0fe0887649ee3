import type { Clock, Logger } from "@app/core";
import type { StoredResponse } from "@app/edge";
import type { X402Rail } from "@app/payments";
import { encodePaymentResponseHeader } from "@x402/core/http";
import type { EntitlementStore } from "../store/entitlements.ts";
import type { PaymentLedger, PaymentRecord } from "../store/ledger.ts";

/** A `verified` payment untouched this long had its request die mid-payment (a crash, a kill). */
export const STALE_VERIFIED_MS = 5 * 60_000;

export type SettlementsDeps = {
  x402: X402Rail;
  ledger: PaymentLedger;
  entitlements: EntitlementStore;
  /** Undoes what a payment reserved (a premium use) when it fails. */
  onPaymentFailed: (paymentId: string) => Promise<void>;
  clock: Clock;
  logger: Logger;
};

/**
 * Finishes x402 payments whose settlement the facilitator did not confirm, from what the chain
 * says: a broadcast settlement is `pending` (never called failed) until its transaction confirms
 * or its authorisation expires unused. Used by a payer's retry and by the reconciler, so the
 * outcome is the same whoever asks first, on any instance, after any restart.
 */
export class PendingSettlements {
  constructor(private readonly deps: SettlementsDeps) {}

  /** Whether a payment still waits on the chain (a `verified` one only once its request is gone). */
  isUnfinished(payment: PaymentRecord): boolean {
    if (payment.state === "pending") return true;
    const idleMs = this.deps.clock.now().getTime() - payment.updatedAt.getTime();
    return payment.state === "verified" && idleMs > STALE_VERIFIED_MS;
  }

  /** Asks the chain about an unfinished payment and records the answer; its state afterwards. */
  async resolve(payment: PaymentRecord): Promise<PaymentRecord["state"]> {
    if (!this.isUnfinished(payment) || !payment.authorizationFacts) return payment.state;
    const outcome = await this.deps.x402.settlementOutcome({
      transaction: payment.reference ?? undefined,
      authorization: payment.authorizationFacts,
    });
    if (outcome === "pending") return payment.state;
    const log = { paymentId: payment.id, transaction: payment.reference };
    if (outcome === "settled") {
      if (!(await this.deps.ledger.confirmed(payment.id))) return "settled";
      if (payment.grantsEntitlement && payment.payer) {
        await this.deps.entitlements.grant(payment.payer, payment.route, payment.id);
      }
      this.deps.logger.info(log, "a pending settlement confirmed on chain");
      return "settled";
    }
    const interrupted = payment.state === "verified";
    if (interrupted) await this.deps.ledger.canceled(payment.id, "interrupted before settlement");
    else
      await this.deps.ledger.failed(
        payment.id,
        "settlement_failed: not confirmed before the authorisation expired",
      );
    await this.deps.onPaymentFailed(payment.id);
    this.deps.logger.warn(
      log,
      interrupted ? "an interrupted payment went unsettled" : "a pending settlement failed",
    );
    return interrupted ? "canceled" : "failed";
  }

  /** The response a confirmed pending payment bought, with its settlement receipt. */
  responseOf(payment: PaymentRecord): StoredResponse | undefined {
    if (!payment.response) return undefined;
    const receipt = encodePaymentResponseHeader({
      success: true,
      transaction: payment.reference ?? "",
      network: (payment.network ?? "") as `${string}:${string}`,
      payer: payment.payer ?? undefined,
    });
    return {
      ...payment.response,
      headers: { ...payment.response.headers, "PAYMENT-RESPONSE": receipt },
    };
  }
}

import type { Clock, Logger } from "@app/core";
import type { StoredResponse } from "@app/edge";
import type { MppRail } from "@app/payments";
import { Receipt } from "mppx";
import type { PaymentLedger, PaymentRecord } from "../store/ledger.ts";

/** A charge whose transaction the chain has not seen this long after it was recorded never landed. */
export const MPP_CHARGE_GIVE_UP_MS = 15 * 60_000;

export type PendingMppChargesDeps = {
  mpp: Pick<MppRail, "chargeOutcome">;
  ledger: PaymentLedger;
  clock: Clock;
  logger: Logger;
};

/**
 * Finishes MPP one-shot charges that were recorded `pending` (with the response they buy) before
 * the charge was sent, and never marked settled: the process died between the charge and the
 * ledger write, or the write failed. The chain says which: the charge's transaction succeeded
 * (settled, and the response goes to the payer's `Idempotency-Key`), reverted (failed), or is
 * still unknown after {@link MPP_CHARGE_GIVE_UP_MS} (failed: it did not go out).
 */
export class PendingMppCharges {
  constructor(private readonly deps: PendingMppChargesDeps) {}

  isUnfinished(payment: PaymentRecord): boolean {
    return payment.rail === "mpp" && payment.state === "pending" && payment.reference !== null;
  }

  /** Asks the chain about an unfinished charge and records the answer; its state afterwards. */
  async resolve(payment: PaymentRecord): Promise<PaymentRecord["state"]> {
    if (!this.isUnfinished(payment)) return payment.state;
    const outcome = await this.deps.mpp.chargeOutcome(payment.reference as `0x${string}`);
    const log = { paymentId: payment.id, transaction: payment.reference };
    if (outcome === "settled") {
      if (await this.deps.ledger.confirmed(payment.id))
        this.deps.logger.info(log, "an MPP charge recorded before a crash landed on chain");
      return "settled";
    }
    const waitedMs = this.deps.clock.now().getTime() - payment.createdAt.getTime();
    if (outcome === "pending" && waitedMs < MPP_CHARGE_GIVE_UP_MS) return payment.state;
    await this.deps.ledger.failed(
      payment.id,
      outcome === "failed" ? "mpp_charge_reverted" : "mpp_charge_never_landed",
    );
    this.deps.logger.warn(log, "an MPP charge recorded before a crash did not land");
    return "failed";
  }

  /** The response a landed charge bought, with its payment receipt. */
  responseOf(payment: PaymentRecord): StoredResponse | undefined {
    if (!payment.response || !payment.reference) return undefined;
    const receipt = Receipt.serialize(
      Receipt.from({
        method: "tempo",
        reference: payment.reference,
        status: "success",
        timestamp: payment.updatedAt.toISOString(),
      }),
    );
    return { ...payment.response, headers: { ...payment.response.headers, "Payment-Receipt": receipt } };
  }
}

import type { Clock, Logger } from "@app/core";
import type { IdempotencyStore } from "@app/edge";
import type { PaymentLedger, PaymentRecord } from "../store/ledger.ts";
import type { PendingMppCharges } from "./mpp-pending-charges.ts";
import type { PendingSettlements } from "./settlements.ts";

/** A payment or key left unfinished this long is looked at by the reconciler. */
const SETTLE_GRACE_MS = 15_000;
/** A key whose request is gone (no payment waits on the chain for it) is freed after this long. */
const ABANDONED_KEY_MS = 10 * 60_000;

export type ReconcilerDeps = {
  ledger: PaymentLedger;
  idempotency: IdempotencyStore;
  settlements: PendingSettlements;
  /** MPP charges recorded before they were sent (absent when the service takes no MPP). */
  mppCharges?: PendingMppCharges;
  clock: Clock;
  logger: Logger;
};

/**
 * Finishes what requests left unfinished, from the chain and the ledger: pending settlements
 * (confirmed or failed), payments interrupted by a crash, and `Idempotency-Key`s whose request is
 * gone (completed with the response their payment bought, or freed). Runs at start and then
 * periodically, on every instance; each step is a conditional update, so instances agree.
 */
export class PaymentReconciler {
  constructor(private readonly deps: ReconcilerDeps) {}

  async sweep(): Promise<{ payments: number; keys: number }> {
    const now = this.deps.clock.now().getTime();
    let payments = 0;
    for (const payment of await this.deps.ledger.unfinished(new Date(now - SETTLE_GRACE_MS))) {
      const finisher = this.finisherOf(payment);
      if (!finisher?.isUnfinished(payment)) continue;
      if ((await finisher.resolve(payment)) !== payment.state) payments += 1;
    }
    let keys = 0;
    for (const pending of await this.deps.idempotency.pendingSince(new Date(now - SETTLE_GRACE_MS))) {
      // The key's attachment is the claim key of the authorisation paying for its request.
      const payment = pending.attachment ? await this.deps.ledger.byClaimKey(pending.attachment) : undefined;
      const stored = payment?.state === "settled" ? this.finisherOf(payment)?.responseOf(payment) : undefined;
      if (stored) {
        // On its holder's behalf (its lease): a key taken over meanwhile is left to its new holder.
        if (await this.deps.idempotency.complete(pending.lease, stored)) keys += 1;
      } else if (
        (!payment || payment.state === "failed" || payment.state === "canceled") &&
        pending.startedAt.getTime() < now - ABANDONED_KEY_MS
      ) {
        // Freed only when nothing was charged for it: a key whose payment settled or may still
        // settle keeps answering 409 until the chain says which.
        if (await this.deps.idempotency.release(pending.lease)) keys += 1;
      }
    }
    return { payments, keys };
  }

  /** What finishes a payment of its rail: x402 settlements, or MPP charges. */
  private finisherOf(payment: PaymentRecord): PendingSettlements | PendingMppCharges | undefined {
    return payment.rail === "mpp" ? this.deps.mppCharges : this.deps.settlements;
  }

  /** Sweeps now and every `everyMs`; the returned function stops it. */
  start(everyMs = 15_000): () => void {
    const run = () =>
      this.sweep().then(
        (done) => {
          if (done.payments + done.keys > 0) this.deps.logger.info(done, "reconciled unfinished payments");
        },
        (error: unknown) => this.deps.logger.warn({ err: error }, "payment reconciliation failed"),
      );
    void run();
    const timer = setInterval(run, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}

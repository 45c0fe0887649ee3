import type { Clock, Logger } from "@app/core";
import type { Database } from "@app/db";
import type { IdempotencyStore } from "@app/edge";
import { type MppRail, purgeExpiredEntries, type X402Rail } from "@app/payments";
import type { CreditPayment, CreditPayments } from "../store/credit-payments.ts";
import { creditAnswer } from "./credit-answer.ts";

/** A pending payment untouched this long had its request end (answered 503, or died): the chain decides. */
export const STALE_PENDING_MS = 60_000;
/** An MPP charge the chain has not seen this long after it was claimed never went out. */
export const MPP_GIVE_UP_MS = 15 * 60_000;

export type CreditReconcilerDeps = {
  db: Database;
  x402: Pick<X402Rail, "settlementOutcome">;
  mpp: Pick<MppRail, "chargeOutcome">;
  payments: CreditPayments;
  creditKeys: IdempotencyStore;
  clock: Clock;
  logger: Logger;
};

/**
 * Finishes payments for credit whose request could not: a settlement sent and not confirmed (the
 * payer was answered 503), or a process that died between the claim and the credit. The chain
 * says how each ended: settled (credited now, once: the credit only moves a `pending` payment),
 * failed or expired unused (nothing credited), or not yet. The `Idempotency-Key` pinned for such a
 * payment then gets its answer (the credit) or is freed. Also purges what can never be used again:
 * expired sign-in nonces, MPP replay markers and stored answers.
 */
export class CreditReconciler {
  constructor(private readonly deps: CreditReconcilerDeps) {}

  /** One round; how many payments it finished. */
  async reconcile(): Promise<number> {
    const now = this.deps.clock.now();
    const stale = await this.deps.payments.unfinished(new Date(now.getTime() - STALE_PENDING_MS));
    let finished = 0;
    for (const payment of stale) {
      const outcome = await this.outcomeOf(payment, now).catch((error: unknown) => {
        this.deps.logger.warn(
          { err: error, transaction: payment.transaction },
          "a credit payment could not be looked up",
        );
        return "pending" as const;
      });
      if (outcome === "settled") {
        await this.deps.payments.credit(payment.reference, payment.transaction);
        this.deps.logger.info(
          { transaction: payment.transaction },
          "a pending credit payment settled: credited",
        );
        finished += 1;
      } else if (outcome === "failed") {
        await this.deps.payments.fail(payment.reference, "not settled on chain");
        this.deps.logger.warn(
          { transaction: payment.transaction },
          "a pending credit payment did not settle",
        );
        finished += 1;
      }
    }
    await this.settleKeys(now);
    return finished;
  }

  private async outcomeOf(payment: CreditPayment, now: Date): Promise<"settled" | "failed" | "pending"> {
    if (payment.protocol === "x402") {
      if (!payment.authorization) return "failed";
      return this.deps.x402.settlementOutcome({
        transaction: payment.transaction ?? undefined,
        authorization: payment.authorization,
      });
    }
    const outcome = payment.transaction
      ? await this.deps.mpp.chargeOutcome(payment.transaction as `0x${string}`)
      : "failed";
    const waited = now.getTime() - payment.createdAt.getTime();
    return outcome === "pending" && waited >= MPP_GIVE_UP_MS ? "failed" : outcome;
  }

  /** Pinned keys whose request is gone: the credit's answer once their payment is credited, freed once it failed. */
  private async settleKeys(now: Date): Promise<void> {
    const pending = await this.deps.creditKeys.pendingSince(new Date(now.getTime() - STALE_PENDING_MS));
    for (const key of pending.filter((candidate) => candidate.pinned)) {
      const payment = key.attachment ? await this.deps.payments.get(key.attachment) : undefined;
      if (payment?.state === "pending") continue;
      if (payment?.state === "credited") {
        const balance = (await this.deps.payments.creditedBalance(payment.reference)) ?? 0n;
        await this.deps.creditKeys.complete(
          key.lease,
          creditAnswer(payment.amountMicro, balance, payment.transaction),
        );
      } else {
        await this.deps.creditKeys.release(key.lease);
      }
    }
  }

  /** Deletes spent sign-in nonces, MPP replay markers and stored answers past their time. */
  async purge(): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.db.query("DELETE FROM gateway.siwx_spent_nonces WHERE expires_at < $1", [now]);
    await purgeExpiredEntries(this.deps.db, "gateway.mpp_store", now);
    await this.deps.creditKeys.purgeExpired();
  }

  /** Reconciles at start and every `everyMs` (purging every tenth round); the returned function stops it. */
  start(everyMs = 15_000): () => void {
    let round = 0;
    const tick = () => {
      const purge = round % 10 === 0;
      round += 1;
      void this.reconcile()
        .then(() => (purge ? this.purge() : undefined))
        .catch((error: unknown) =>
          this.deps.logger.warn({ err: error }, "the credit reconciler failed a round"),
        );
    };
    tick();
    const timer = setInterval(tick, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}

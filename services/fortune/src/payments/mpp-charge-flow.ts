import { type Logger, requestIdOf } from "@app/core";
import { requestInProgress, type StoredResponse, sendStoredResponse, storedJson } from "@app/edge";
import type { MppRail } from "@app/payments";
import { type Refusal, refusal } from "@app/payments";
import type { Context } from "hono";
import { usdToAtomic } from "../domain/money.ts";
import type { PaymentLedger } from "../store/ledger.ts";
import type { Challenges } from "./challenges.ts";
import type { IdempotencyGuard } from "./idempotency-guard.ts";
import { type Offer, type PaidHandler, paidContext } from "./offer.ts";

export type MppChargeFlowDeps = {
  mpp: MppRail;
  ledger: PaymentLedger;
  idempotency: IdempotencyGuard;
  challenges: Challenges;
  logger: Logger;
};

const NOT_FRESH = refusal(
  "replay_needs_fresh_credential",
  "A stored response goes again only to a new signed transaction from the same payer, not yet on chain.",
);

const ALREADY_PRESENTED = refusal(
  "mpp_credential_already_presented",
  "This MPP credential is already being charged or was charged; sign a new one.",
);

const NO_PAYER = refusal(
  "mpp_invalid_credential",
  "The MPP credential carries no signed transaction or confirmed transfer naming its payer.",
);

/**
 * An MPP one-shot charge. The payer comes from what can be verified (the signed transaction, or
 * the transfer on chain), and the `Idempotency-Key` is looked up before anything is charged: a
 * replay gets its stored response and leaves the credential unspent. The handler runs before the
 * charge, so a handler failure charges nothing; a charge that lands is recorded and buys exactly
 * the response it is served with.
 */
export class MppChargeFlow {
  constructor(private readonly deps: MppChargeFlowDeps) {}

  async pay(c: Context, offer: Offer, handler: PaidHandler): Promise<Response> {
    const price = (offer.mpp as NonNullable<Offer["mpp"]>).priceUsd;
    const credential = await this.deps.mpp.payerOf(c.req.raw);
    if (!credential) return this.refuse(c, offer, NO_PAYER);
    const { payer } = credential;
    const keyed = await this.deps.idempotency.begin(c, offer, payer, `mpp:${credential.credentialId}`);
    if (keyed.kind === "replay" || keyed.kind === "in_progress") {
      // A transaction on chain is public: only a signed one not broadcast yet proves its payer asks.
      if (!(await this.deps.mpp.isUnspent(credential))) return this.refuse(c, offer, NOT_FRESH);
      if (keyed.kind === "in_progress") throw requestInProgress();
      return sendStoredResponse(c, keyed.stored, true);
    }
    const run = keyed.kind === "run" ? keyed : undefined;
    let paymentId: string | undefined;
    let sent = false;
    try {
      await offer.admit?.();
      const body = await handler(paidContext(payer, "mpp").context);
      const priceAtomic = usdToAtomic(price);
      const response = storedJson(200, body, { "Cache-Control": "private" });
      // Recorded, with the response it buys, before the charge is sent: if the process dies once
      // the charge has landed, the reconciler finds it on chain and the payer's key gets its answer.
      paymentId = await this.deps.ledger.chargePending({
        route: offer.route,
        rail: "mpp",
        scheme: "charge",
        network: this.deps.mpp.network,
        asset: this.deps.mpp.currency,
        payer,
        claimKey: `mpp:${credential.credentialId}`,
        authorizedAtomic: priceAtomic,
        settledAtomic: priceAtomic,
        reference: credential.credentialId,
        response,
        idempotencyKey: run?.key,
      });
      if (!paymentId) {
        await run?.release();
        return this.refuse(c, offer, ALREADY_PRESENTED);
      }
      // The charge may land after this request is gone: its key waits for the chain from here.
      if (run && !(await run.pin())) throw requestInProgress();
      sent = true;
      const outcome = await this.deps.mpp.charge(c.req.raw, price);
      if (outcome.kind === "refused") {
        await this.deps.ledger.failed(paymentId, outcome.refusal.reason);
        await run?.release();
        return this.refuse(c, offer, outcome.refusal);
      }
      await this.deps.ledger.settled(paymentId, priceAtomic, outcome.reference, { delivered: true });
      const paid: StoredResponse = {
        ...response,
        headers: { ...outcome.receiptHeaders, ...response.headers },
      };
      await run?.complete(paid);
      return sendStoredResponse(c, paid, false);
    } catch (error) {
      // Before the charge was sent nothing was taken: the key is free again (and the recorded
      // charge failed). Once sent, it may have landed whatever went wrong: the payment stays
      // `pending` and the key taken until the reconciler asks the chain and, if it landed, gives
      // the key its response.
      if (!sent) {
        if (paymentId) await this.deps.ledger.failed(paymentId, "mpp_charge_not_sent");
        await run?.release();
      } else
        this.deps.logger.error(
          { requestId: requestIdOf(c), paymentId, err: error },
          "an MPP charge was sent but not recorded as settled: the reconciler will ask the chain",
        );
      throw error;
    }
  }

  /** Throws the 402 refusing this payment (as a rejected promise: `return this.refuse(…)` in a `try` skips its `catch`). */
  private async refuse(c: Context, offer: Offer, refused: Refusal): Promise<never> {
    throw await this.deps.challenges.paymentRequired(c.req.raw, offer, refused);
  }
}

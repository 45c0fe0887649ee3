import { type Logger, requestIdOf } from "@app/core";
import { requestInProgress, type StoredResponse, sendStoredResponse, storedJson } from "@app/edge";
import type { X402Rail } from "@app/payments";
import {
  authorizationFacts,
  decodePayment,
  isRefusal,
  type Refusal,
  refusal,
  requirementsMismatch,
  type X402Payment,
} from "@app/payments";
import { encodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequirements, SettleResponse } from "@x402/core/types";
import type { Context } from "hono";
import { FortuneError, paymentsUnavailable, RETRY_PAYMENT_SECONDS } from "../errors.ts";
import type { EntitlementStore } from "../store/entitlements.ts";
import type { PaymentLedger } from "../store/ledger.ts";
import type { Challenges } from "./challenges.ts";
import { ChargeMeter } from "./charge-meter.ts";
import type { IdempotencyGuard, KeyedRun } from "./idempotency-guard.ts";
import { type Offer, type PaidHandler, paidContext } from "./offer.ts";
import type { PendingSettlements } from "./settlements.ts";

export type X402FlowDeps = {
  x402: X402Rail;
  ledger: PaymentLedger;
  entitlements: EntitlementStore;
  idempotency: IdempotencyGuard;
  challenges: Challenges;
  settlements: PendingSettlements;
  onPaymentFailed: (paymentId: string) => Promise<void>;
  logger: Logger;
};

/**
 * An x402 payment, in the phases of `x402ResourceServer`: decode and match the requirements,
 * look up replays, verify, claim the authorisation once, run the handler, keep its response,
 * settle, record, answer. A body is served only once its payment settled; a settlement the chain
 * has not confirmed yet is `pending`, answered 503 with `Retry-After`, and its response waits for
 * the payer's retry.
 *
 * A spent authorisation is public (it is in the settlement's calldata), so it proves nothing about
 * who presents it: it redeems its own payment's response once, and a stored response goes again
 * only to a fresh authorisation from the same payer, one the facilitator finds valid and unspent.
 */
export class X402Flow {
  constructor(private readonly deps: X402FlowDeps) {}

  async pay(c: Context, offer: Offer, header: string, handler: PaidHandler): Promise<Response> {
    const payment = decodePayment(header);
    if (isRefusal(payment)) return this.refuse(c, offer, payment);
    const expected = await this.deps.challenges.requirements(offer);
    const mismatch = requirementsMismatch(payment.payload.accepted, expected);
    if (mismatch) return this.refuse(c, offer, mismatch);

    const keyed = await this.deps.idempotency.begin(c, offer, payment.authorization.from, payment.claimKey);
    if (keyed.kind === "replay" || keyed.kind === "in_progress") {
      const sameAuthorization = keyed.claimKey === payment.claimKey;
      if (!sameAuthorization && !(await this.isFreshFromPayer(c, payment, expected))) {
        return this.refuse(c, offer, NOT_FRESH);
      }
      if (keyed.kind === "in_progress")
        return this.resume(c, offer, keyed.claimKey, keyed.run, sameAuthorization);
      if (!sameAuthorization) return sendStoredResponse(c, keyed.stored, true);
      return this.redeemOnce(c, offer, keyed.claimKey, keyed.stored);
    }
    const run = keyed.kind === "run" ? keyed : undefined;
    try {
      await offer.admit?.();
    } catch (error) {
      await run?.release();
      throw error;
    }
    return this.payAnew(c, offer, payment, expected, handler, run);
  }

  /** Whether the payer also signed this authorisation, still valid and unspent (the facilitator's verify). */
  private async isFreshFromPayer(c: Context, payment: X402Payment, expected: PaymentRequirements) {
    const verification = await this.deps.x402.verify(payment.payload, expected).catch((error: Error) => {
      this.deps.logger.warn({ requestId: requestIdOf(c), err: error }, "the x402 facilitator did not verify");
      throw paymentsUnavailable();
    });
    return verification.isValid && verification.payer?.toLowerCase() === payment.authorization.from;
  }

  /** The same authorisation as a completed keyed request: its response, if not handed out yet. */
  private async redeemOnce(c: Context, offer: Offer, claimKey: string, stored: StoredResponse) {
    const payment = await this.deps.ledger.byClaimKey(claimKey);
    if (!payment || !(await this.deps.ledger.deliver(payment.id))) return this.refuse(c, offer, NOT_FRESH);
    return sendStoredResponse(c, stored, true);
  }

  private async payAnew(
    c: Context,
    offer: Offer,
    payment: X402Payment,
    expected: PaymentRequirements,
    handler: PaidHandler,
    run: KeyedRun | undefined,
  ): Promise<Response> {
    const payer = payment.authorization.from;
    const verification = await this.deps.x402
      .verify(payment.payload, expected)
      .catch(async (error: Error) => {
        this.deps.logger.warn(
          { requestId: requestIdOf(c), err: error },
          "the x402 facilitator did not verify",
        );
        await run?.release();
        throw paymentsUnavailable();
      });
    if (!verification.isValid || verification.payer?.toLowerCase() !== payer) {
      // A retry of an authorisation already claimed here fails verification once it is spent on
      // chain: it resumes its payment (after its signature proved its payer).
      if (
        (await this.deps.ledger.byClaimKey(payment.claimKey)) &&
        this.deps.x402.isSignedByPayer(payment, expected)
      ) {
        await run?.release();
        return this.resume(c, offer, payment.claimKey, undefined, true);
      }
      await run?.release();
      const reason = verification.isValid
        ? "invalid_payer"
        : (verification.invalidReason ?? "invalid_payment");
      return this.refuse(c, offer, refusal(reason, "The facilitator did not accept this payment."));
    }

    const maxAtomic = BigInt(expected.amount);
    const paymentId = await this.deps.ledger.claim({
      route: offer.route,
      rail: "x402",
      scheme: expected.scheme,
      network: expected.network,
      asset: expected.asset,
      payer,
      claimKey: payment.claimKey,
      authorizedAtomic: maxAtomic,
      idempotencyKey: run?.key,
      authorizationFacts: authorizationFacts(payment.authorization, expected.asset),
      grantsEntitlement: offer.siwxReplay === true,
    });
    if (!paymentId) {
      await run?.release();
      return this.resume(c, offer, payment.claimKey, undefined, true);
    }

    const meter = new ChargeMeter(maxAtomic);
    const upto = expected.scheme === "upto";
    const { context, beforeSettle } = paidContext(
      payer,
      "x402",
      upto ? (usd) => meter.charge(usd) : undefined,
    );
    let body: Record<string, unknown>;
    let amount: bigint;
    try {
      body = await handler(context);
      amount = upto ? meter.charged : maxAtomic;
      if (amount <= 0n) throw new Error(`${offer.route}: an upto handler must charge more than zero`);
      for (const hook of beforeSettle) await hook(paymentId);
      // The settlement may land after this request is gone: its key waits for the chain from here.
      if (run && !(await run.pin())) throw requestInProgress();
    } catch (error) {
      await this.deps.ledger.canceled(paymentId, error instanceof Error ? error.message : "handler failed");
      await this.deps.onPaymentFailed(paymentId);
      await run?.release();
      throw error;
    }

    const response = storedJson(200, body, { "Cache-Control": "private" });
    await this.deps.ledger.prepared(paymentId, amount, response);
    const settlement = await this.deps.x402
      .settle(payment.payload, expected, amount)
      .catch((error: Error): SettleResponse | undefined => {
        this.deps.logger.warn(
          { requestId: requestIdOf(c), paymentId, err: error },
          "the x402 facilitator did not answer the settlement; it may have been broadcast",
        );
        return undefined;
      });
    if (!settlement || (!settlement.success && settlement.errorReason === "settlement_pending")) {
      const transaction = settlement?.transaction || null;
      await this.deps.ledger.pending(paymentId, amount, transaction, response);
      this.deps.logger.warn(
        { requestId: requestIdOf(c), paymentId, transaction },
        "settlement not confirmed yet",
      );
      throw settlementPending(paymentId, transaction);
    }
    if (!settlement.success) {
      // The facilitator's reason code only: its message may carry RPC URLs and request bodies.
      const reason = (settlement.errorReason ?? "settlement_failed").split(/[:\s]/)[0] as string;
      await this.deps.ledger.failed(paymentId, `settlement_failed: ${reason}`);
      await this.deps.onPaymentFailed(paymentId);
      this.deps.logger.warn({ requestId: requestIdOf(c), paymentId, reason }, "settlement failed");
      await run?.release();
      return this.refuse(c, offer, refusal("settlement_failed", `The payment did not settle (${reason}).`));
    }
    await this.deps.ledger.settled(paymentId, amount, settlement.transaction, { delivered: true });
    if (offer.siwxReplay) await this.deps.entitlements.grant(payer, offer.route, paymentId);
    const paid: StoredResponse = {
      ...response,
      headers: { ...response.headers, "PAYMENT-RESPONSE": encodePaymentResponseHeader(settlement) },
    };
    await run?.complete(paid);
    return sendStoredResponse(c, paid, false);
  }

  /**
   * A payment already claimed by an earlier request: still running (refused, or 409 under its
   * key), awaiting the chain (asked again now: its stored response once confirmed, 503 meanwhile),
   * failed, or settled. A retry presenting the payment's own authorisation redeems the response
   * once; a fresh authorisation from the payer (under the key) any number of times.
   */
  private async resume(
    c: Context,
    offer: Offer,
    claimKey: string,
    run: KeyedRun | undefined,
    sameAuthorization: boolean,
  ) {
    const payment = await this.deps.ledger.byClaimKey(claimKey);
    const state = payment ? await this.deps.settlements.resolve(payment) : undefined;
    if (payment && state === "settled") {
      const stored = this.deps.settlements.responseOf(payment);
      if (stored) {
        await run?.complete(stored);
        const redeemed = await this.deps.ledger.deliver(payment.id);
        if (redeemed || !sameAuthorization) return sendStoredResponse(c, stored, false);
      }
    }
    if (payment && state === "pending") throw settlementPending(payment.id, payment.reference);
    if (state === "failed" || state === "canceled") {
      await run?.release();
      return this.refuse(
        c,
        offer,
        refusal("settlement_failed", "The payment for this request did not settle."),
      );
    }
    if (run && state !== "settled") throw requestInProgress();
    return this.refuse(c, offer, ALREADY_USED);
  }

  /** Throws the 402 refusing this payment (as a rejected promise: `return this.refuse(…)` in a `try` skips its `catch`). */
  private async refuse(c: Context, offer: Offer, refused: Refusal): Promise<never> {
    throw await this.deps.challenges.paymentRequired(c.req.raw, offer, refused);
  }
}

const NOT_FRESH = refusal(
  "replay_needs_fresh_authorization",
  "A stored response goes again only to a new, unspent authorisation signed by the same payer.",
);
const ALREADY_USED = refusal("payment_already_used", "This authorisation was already presented.");

/** 503: the settlement was broadcast but not confirmed; a retry gets the response once it is. */
function settlementPending(paymentId: string, transaction: string | null) {
  return new FortuneError(
    "SETTLEMENT_PENDING",
    "The payment was sent to the chain and is not confirmed yet; retry with the same authorisation " +
      "or Idempotency-Key to get the response, without paying again.",
    { paymentId, transaction },
    { "Retry-After": String(RETRY_PAYMENT_SECONDS) },
  );
}

import { type Clock, type Logger, requestHeader } from "@app/core";
import type { IdempotencyStore } from "@app/edge";
import type { MppRail, X402Rail } from "@app/payments";
import { refusal, type SiwxAuthenticator, SiwxError, type SiwxIdentity } from "@app/payments";
import type { Context } from "hono";
import type { EntitlementStore } from "../store/entitlements.ts";
import type { PaymentLedger } from "../store/ledger.ts";
import { Challenges } from "./challenges.ts";
import { IdempotencyGuard } from "./idempotency-guard.ts";
import { MppChargeFlow } from "./mpp-charge-flow.ts";
import { PendingMppCharges } from "./mpp-pending-charges.ts";
import type { Offer, PaidHandler } from "./offer.ts";
import type { PaymentRequiredError } from "./responses.ts";
import { PendingSettlements } from "./settlements.ts";
import { SiwxReplay } from "./siwx-replay.ts";
import { X402Flow } from "./x402-flow.ts";

export type GateDeps = {
  x402: X402Rail;
  mpp?: MppRail;
  siwx: SiwxAuthenticator;
  ledger: PaymentLedger;
  idempotency: IdempotencyStore;
  entitlements: EntitlementStore;
  origin: () => URL;
  clock: Clock;
  logger: Logger;
  /** Undoes what a payment reserved (a premium use) when it fails, now or when the chain says so. */
  onPaymentFailed?: (paymentId: string) => Promise<void>;
};

/**
 * The payment gate of every paid route: it sends each request to the flow its headers ask for
 * (a SIWX replay, an x402 payment, an MPP charge) or throws the 402 with every way to pay (a
 * {@link PaymentRequiredError}, as every refusal of a flow is thrown). The flows live in their own
 * modules; this only dispatches.
 */
export class PaymentGate {
  readonly settlements: PendingSettlements;
  /** MPP charges recorded before they were sent, for the reconciler (when MPP is offered). */
  readonly mppCharges?: PendingMppCharges;
  private readonly challenges: Challenges;
  private readonly x402: X402Flow;
  private readonly mppCharge?: MppChargeFlow;
  private readonly replay: SiwxReplay;

  constructor(private readonly deps: GateDeps) {
    const onPaymentFailed = deps.onPaymentFailed ?? (async () => undefined);
    const idempotency = new IdempotencyGuard(deps.idempotency);
    this.challenges = new Challenges(deps);
    this.settlements = new PendingSettlements({ ...deps, onPaymentFailed });
    this.x402 = new X402Flow({
      ...deps,
      idempotency,
      challenges: this.challenges,
      settlements: this.settlements,
      onPaymentFailed,
    });
    if (deps.mpp) {
      this.mppCharges = new PendingMppCharges({ ...deps, mpp: deps.mpp });
      this.mppCharge = new MppChargeFlow({
        ...deps,
        mpp: deps.mpp,
        idempotency,
        challenges: this.challenges,
      });
    }
    this.replay = new SiwxReplay({ ...deps, challenges: this.challenges });
  }

  async handle(c: Context, offer: Offer, handler: PaidHandler): Promise<Response> {
    const x402Header = requestHeader(c, "payment-signature") ?? requestHeader(c, "x-payment");
    const mppCredential = /^Payment\s/i.test(requestHeader(c, "authorization") ?? "");
    const siwxHeader = requestHeader(c, "sign-in-with-x");

    if (offer.siwxReplay && siwxHeader) {
      const replayed = await this.replay.run(c, offer, siwxHeader, handler, Boolean(x402Header));
      if (replayed) return replayed;
    }
    if (x402Header && offer.x402) return this.x402.pay(c, offer, x402Header, handler);
    if (mppCredential && offer.mpp && this.mppCharge) return this.mppCharge.pay(c, offer, handler);
    await offer.admit?.();
    throw await this.challenges.paymentRequired(c.req.raw, offer);
  }

  /**
   * The wallet behind a request's SIGN-IN-WITH-X header, signed for `path`; else throws the 402
   * ({@link PaymentRequiredError}): the refusal's reason and message, and a fresh sign-in challenge.
   */
  async identify(c: Context, path: string, description: string): Promise<SiwxIdentity> {
    try {
      return await this.deps.siwx.authenticate(requestHeader(c, "sign-in-with-x"), path);
    } catch (error) {
      if (!(error instanceof SiwxError)) throw error;
      const offer: Offer = { route: "", path, description, siwxReplay: true, request: null };
      throw await this.challenges.paymentRequired(c.req.raw, offer, refusal(error.code, error.message));
    }
  }
}

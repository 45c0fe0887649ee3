import type { Logger } from "@app/core";
import {
  buildPaymentRequired,
  type MppRail,
  type Refusal,
  type SiwxAuthenticator,
  type X402Rail,
} from "@app/payments";
import { encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { GatewayError } from "../errors.ts";
import type { CreditAmount } from "./credit-amount.ts";

/**
 * A 402 of the gateway's self-serve routes: the x402 challenge in `PAYMENT-REQUIRED` (payment
 * requirements, or a sign-in challenge in its `sign-in-with-x` extension), MPP's in
 * `WWW-Authenticate: Payment`, never cached; the body is the platform's error body carrying the
 * x402 `PaymentRequired` too: `{error, message, x402Version, resource, accepts, …}`, `error` the
 * refusal's reason (`settlement_failed`, `siwx_expired`, …) or `PAYMENT_REQUIRED`.
 */
export class PaymentRequiredError extends GatewayError {
  private readonly body: string;

  constructor(x402: PaymentRequired, mpp: string[], refused: Refusal | undefined, message: string) {
    const headers: Record<string, string> = {
      "Cache-Control": "no-store",
      "PAYMENT-REQUIRED": encodePaymentRequiredHeader(x402),
    };
    if (mpp.length > 0) headers["WWW-Authenticate"] = mpp.join(", ");
    super("PAYMENT_REQUIRED", message, {}, headers);
    this.body = JSON.stringify({ error: refused?.reason ?? "PAYMENT_REQUIRED", message, ...x402 });
  }

  override toJson(): string {
    return this.body;
  }
}

export type ChallengesDeps = {
  x402: X402Rail;
  mpp: MppRail;
  siwx: SiwxAuthenticator;
  origin: () => URL;
  logger: Logger;
};

/** The 402s of self-serve: pay for credit (x402 `exact` and an MPP charge, for the amount asked), or sign in. */
export class SelfServeChallenges {
  constructor(private readonly deps: ChallengesDeps) {}

  /** The x402 `exact` requirements for `amount`; 503 while the facilitator cannot be reached. */
  async requirements(amount: CreditAmount): Promise<PaymentRequirements> {
    try {
      return await this.deps.x402.requirements("exact", amount.micro);
    } catch (error) {
      this.deps.logger.warn({ err: error }, "x402 requirements could not be built");
      throw paymentsUnavailable();
    }
  }

  /** The 402 asking for `amount` of credit at `path` (or refusing a payment for it), to throw. */
  async paymentRequired(
    request: Request,
    path: string,
    amount: CreditAmount,
    refused?: Refusal,
  ): Promise<PaymentRequiredError> {
    const x402 = this.deps.x402.paymentRequired({
      accepts: [await this.requirements(amount)],
      url: new URL(path, this.deps.origin()).toString(),
      description: `${amount.usd} USD of gateway credit`,
      error: refused?.reason,
    });
    const mpp = await this.deps.mpp.challenges(request, amount.usd).catch((error: unknown) => {
      this.deps.logger.warn({ err: error }, "MPP challenges could not be built");
      throw paymentsUnavailable();
    });
    const message =
      refused?.message ?? `Pay ${amount.usd} USD (x402 exact or an MPP charge) to add it to your balance.`;
    return new PaymentRequiredError(x402, mpp, refused, message);
  }

  /** The 402 asking to sign in with the wallet for `path` (a fresh challenge), refusing why it failed. */
  async signInRequired(path: string, description: string, refused: Refusal): Promise<PaymentRequiredError> {
    const x402 = buildPaymentRequired({
      accepts: [],
      url: new URL(path, this.deps.origin()).toString(),
      description,
      error: refused.reason,
      extensions: await this.deps.siwx.challenge(path),
    });
    return new PaymentRequiredError(x402, [], refused, refused.message);
  }
}

/** How long a caller is asked to wait before retrying a payment the chain or facilitator holds up. */
export const RETRY_PAYMENT_SECONDS = 5;

/** 503: the facilitator or chain cannot be reached; nothing was charged. */
export function paymentsUnavailable(): GatewayError {
  return new GatewayError(
    "PAYMENTS_UNAVAILABLE",
    "The payment service cannot be reached; nothing was charged. Retry shortly.",
    {},
    { "Retry-After": String(RETRY_PAYMENT_SECONDS) },
  );
}

/** 503: the payment was sent to the chain and is not confirmed yet; it is credited once it is. */
export function settlementPending(transaction: string | null): GatewayError {
  return new GatewayError(
    "SETTLEMENT_PENDING",
    "The payment was sent to the chain and is not confirmed yet: it is credited once it is, never twice. " +
      "Retry with the same Idempotency-Key to get the answer.",
    { transaction },
    { "Retry-After": String(RETRY_PAYMENT_SECONDS) },
  );
}

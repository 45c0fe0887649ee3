import type { Logger } from "@app/core";
import type { MppRail, Refusal, SiwxAuthenticator, X402Rail } from "@app/payments";
import type { PaymentRequirements } from "@x402/core/types";
import { usdToAtomic } from "../domain/money.ts";
import { paymentsUnavailable } from "../errors.ts";
import { ChallengeCache } from "./challenge-cache.ts";
import type { Offer } from "./offer.ts";
import { type Challenge, challengeOf, PaymentRequiredError } from "./responses.ts";

export type ChallengesDeps = {
  x402: X402Rail;
  logger: Logger;
  mpp?: MppRail;
  siwx: SiwxAuthenticator;
  origin: () => URL;
};

/**
 * The 402s of paid routes: x402 requirements (`PAYMENT-REQUIRED`), MPP challenges
 * (`WWW-Authenticate: Payment`) and, where replay is offered, a SIWX sign-in challenge. A 402
 * that refuses something says why: `error` is the refusal's short reason (x402's own field) and
 * `message` a sentence.
 */
export class Challenges {
  private readonly plain = new ChallengeCache<Challenge>();

  constructor(private readonly deps: ChallengesDeps) {}

  /** The requirements an offer's x402 payment must match; 503 while the facilitator cannot be reached. */
  async requirements(offer: Offer): Promise<PaymentRequirements> {
    const x402 = offer.x402 as NonNullable<Offer["x402"]>;
    try {
      return await this.deps.x402.requirements(x402.scheme, usdToAtomic(x402.priceUsd));
    } catch (error) {
      this.deps.logger.warn({ err: error }, "x402 requirements could not be built");
      throw paymentsUnavailable();
    }
  }

  /**
   * The 402 of an offer, to throw (`request` is the one refused, for MPP's challenges); a plain
   * one (no refusal, no sign-in nonce) is reused for a few seconds.
   */
  async paymentRequired(request: Request, offer: Offer, refused?: Refusal): Promise<PaymentRequiredError> {
    const message = refused?.message ?? `${offer.description}: payment required.`;
    if (refused || offer.siwxReplay)
      return new PaymentRequiredError(await this.build(request, offer, refused), message);
    const key = [offer.path, offer.x402?.scheme, offer.x402?.priceUsd, offer.mpp?.priceUsd].join("|");
    return new PaymentRequiredError(await this.plain.get(key, () => this.build(request, offer)), message);
  }

  private async build(request: Request, offer: Offer, refused?: Refusal): Promise<Challenge> {
    const accepts = offer.x402 ? [await this.requirements(offer)] : [];
    const extensions = offer.siwxReplay ? await this.deps.siwx.challenge(offer.path) : undefined;
    const x402 = this.deps.x402.paymentRequired({
      accepts,
      url: new URL(offer.path, this.deps.origin()).toString(),
      description: offer.description,
      error: refused?.reason,
      extensions,
    });
    const mpp = offer.mpp && this.deps.mpp ? await this.deps.mpp.challenges(request, offer.mpp.priceUsd) : [];
    return challengeOf(x402, mpp, refused ? { ...x402, message: refused.message } : undefined);
  }
}

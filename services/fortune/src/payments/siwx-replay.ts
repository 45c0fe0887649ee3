import { refusal, type SiwxAuthenticator, SiwxError } from "@app/payments";
import type { Context } from "hono";
import type { EntitlementStore } from "../store/entitlements.ts";
import type { Challenges } from "./challenges.ts";
import { type Offer, type PaidHandler, paidContext } from "./offer.ts";

export type SiwxReplayDeps = {
  siwx: SiwxAuthenticator;
  entitlements: EntitlementStore;
  challenges: Challenges;
};

/**
 * A free replay of a route its wallet paid for once, proven by a SIGN-IN-WITH-X signature. Returns
 * undefined to let a payment the request also carries go ahead instead; without one, a signature
 * that fails or a wallet that has not paid is refused with the 402 (thrown).
 */
export class SiwxReplay {
  constructor(private readonly deps: SiwxReplayDeps) {}

  async run(
    c: Context,
    offer: Offer,
    header: string,
    handler: PaidHandler,
    hasPayment: boolean,
  ): Promise<Response | undefined> {
    let wallet: string;
    try {
      wallet = (await this.deps.siwx.authenticate(header, offer.path)).wallet;
    } catch (error) {
      if (!(error instanceof SiwxError) || hasPayment) return undefined;
      throw await this.deps.challenges.paymentRequired(c.req.raw, offer, refusal(error.code, error.message));
    }
    if (!(await this.deps.entitlements.has(wallet, offer.route))) {
      if (hasPayment) return undefined;
      const notEntitled = refusal("not_entitled", "This wallet has not paid for this route yet.");
      throw await this.deps.challenges.paymentRequired(c.req.raw, offer, notEntitled);
    }
    const body = await handler(paidContext(wallet, "siwx").context);
    c.header("Cache-Control", "private");
    return c.json(body, 200);
  }
}

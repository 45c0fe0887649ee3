import { createHash } from "node:crypto";
import { ApiError, requestHeader } from "@app/core";
import { encodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements, SettleResponse } from "@x402/core/types";
import type { Context } from "hono";
import { usdToAtomic } from "../domain/money.ts";
import { type SiwxAuthenticator, SiwxError, type SiwxIdentity } from "../identity/siwx.ts";
import type { EntitlementStore } from "../store/entitlements.ts";
import type { IdempotencyStore, StoredResponse } from "../store/idempotency.ts";
import type { PaymentLedger } from "../store/ledger.ts";
import { ChallengeCache } from "./challenge-cache.ts";
import { ChargeMeter } from "./charge-meter.ts";
import type { MppRail } from "./mpp-rail.ts";
import { type Challenge, challengeOf, paymentRequired } from "./responses.ts";
import { claimKeyOf, decodePaymentHeader, payerOf, requirementsMismatch } from "./x402-payload.ts";
import type { X402Rail, X402Scheme } from "./x402-rail.ts";

/** What a paid route asks for. */
export type Offer = {
  /** The route's operationId: the ledger's route and the entitlement's scope. */
  route: string;
  path: string;
  description: string;
  /** x402: `exact` at the price, or `upto` with the price as the maximum. */
  x402?: { scheme: X402Scheme; priceUsd: string };
  /** MPP one-shot charge at this price. */
  mpp?: { priceUsd: string };
  /** Paid once, then replayed free with a SIWX signature from the paying wallet. */
  siwxReplay?: boolean;
  /** The validated request, for matching `Idempotency-Key` retries. */
  request: unknown;
};

/** What a paid handler sees: who pays, and how to charge and react to settlement. */
export type PaidContext = {
  payer: string;
  rail: "x402" | "mpp" | "siwx";
  /** For `upto`: adds to what will be settled (over the cap → 400 `CHARGE_OVER_CAP`). No-op on a free replay. */
  charge(usd: string): void;
  /** Runs after the handler, before settlement; throwing refuses the request and settles nothing. */
  beforeSettle(hook: (paymentId: string) => Promise<void>): void;
  /** Runs once the payment settled. */
  afterSettle(hook: (paymentId: string) => Promise<void>): void;
  /** Runs when settlement failed, to undo what `beforeSettle` reserved. */
  onSettleFailure(hook: () => Promise<void>): void;
};

export type PaidHandler = (ctx: PaidContext) => Promise<Record<string, unknown>>;

export type GateDeps = {
  x402: X402Rail;
  mpp?: MppRail;
  siwx: SiwxAuthenticator;
  ledger: PaymentLedger;
  idempotency: IdempotencyStore;
  entitlements: EntitlementStore;
  origin: () => URL;
};

class Hooks {
  before: ((id: string) => Promise<void>)[] = [];
  after: ((id: string) => Promise<void>)[] = [];
  failure: (() => Promise<void>)[] = [];

  context(payer: string, rail: PaidContext["rail"], charge: (usd: string) => void): PaidContext {
    return {
      payer,
      rail,
      charge,
      beforeSettle: (hook) => void this.before.push(hook),
      afterSettle: (hook) => void this.after.push(hook),
      onSettleFailure: (hook) => void this.failure.push(hook),
    };
  }
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The payment pipeline of every paid route: challenge, verify, claim the
 * authorisation once, run the handler, settle, record, answer. A body is only
 * served when its payment settled; a retry with the same `Idempotency-Key` gets
 * the stored response and is not charged again.
 */
export class PaymentGate {
  private readonly plainChallenges = new ChallengeCache<Challenge>();

  constructor(private readonly deps: GateDeps) {}

  async handle(c: Context, offer: Offer, handler: PaidHandler): Promise<Response> {
    const x402Header = requestHeader(c, "payment-signature") ?? requestHeader(c, "x-payment");
    const mppCredential = /^Payment\s/i.test(requestHeader(c, "authorization") ?? "");
    const siwxHeader = requestHeader(c, "sign-in-with-x");

    if (offer.siwxReplay && siwxHeader) {
      const replay = await this.trySiwxReplay(c, offer, siwxHeader, handler, Boolean(x402Header));
      if (replay) return replay;
    }
    if (x402Header && offer.x402) return this.payWithX402(c, offer, x402Header, handler);
    if (mppCredential && offer.mpp && this.deps.mpp) return this.payWithMpp(c, offer, handler);
    return this.challenge(c, offer);
  }

  /**
   * The wallet behind a request's SIGN-IN-WITH-X header, or the 402 to answer with:
   * `{error: siwx_…, message}` and a fresh sign-in challenge.
   */
  async identify(c: Context, path: string, description: string): Promise<SiwxIdentity | Response> {
    try {
      return await this.deps.siwx.authenticate(requestHeader(c, "sign-in-with-x"));
    } catch (error) {
      if (!(error instanceof SiwxError)) throw error;
      const offer: Offer = { route: "", path, description, siwxReplay: true, request: null };
      return this.challenge(c, offer, error.code, { error: error.code, message: error.message });
    }
  }

  /** The 402 for an offer: x402 and MPP challenges, plus a SIWX challenge where replay is offered. */
  async challenge(
    c: Context,
    offer: Offer,
    error?: string,
    body?: Record<string, unknown>,
  ): Promise<Response> {
    if (error || body || offer.siwxReplay)
      return paymentRequired(c, await this.buildChallenge(c, offer, error, body));
    const key = [offer.path, offer.x402?.scheme, offer.x402?.priceUsd, offer.mpp?.priceUsd].join("|");
    return paymentRequired(c, await this.plainChallenges.get(key, () => this.buildChallenge(c, offer)));
  }

  private async buildChallenge(
    c: Context,
    offer: Offer,
    error?: string,
    body?: Record<string, unknown>,
  ): Promise<Challenge> {
    const accepts = offer.x402 ? [await this.requirementsFor(offer)] : [];
    const extensions = offer.siwxReplay ? await this.deps.siwx.challenge(offer.path) : undefined;
    const x402 = this.deps.x402.paymentRequired({
      accepts,
      url: new URL(offer.path, this.deps.origin()).toString(),
      description: offer.description,
      error,
      extensions,
    });
    const mpp =
      offer.mpp && this.deps.mpp ? await this.deps.mpp.challenges(c.req.raw, offer.mpp.priceUsd) : [];
    return challengeOf(x402, mpp, body);
  }

  private requirementsFor(offer: Offer): Promise<PaymentRequirements> {
    const x402 = offer.x402 as NonNullable<Offer["x402"]>;
    return this.deps.x402.requirements(x402.scheme, usdToAtomic(x402.priceUsd));
  }

  private async trySiwxReplay(
    c: Context,
    offer: Offer,
    header: string,
    handler: PaidHandler,
    hasPayment: boolean,
  ): Promise<Response | undefined> {
    let identity: SiwxIdentity;
    try {
      identity = await this.deps.siwx.authenticate(header);
    } catch (error) {
      if (!(error instanceof SiwxError) || hasPayment) return undefined;
      return this.challenge(c, offer, error.code, { error: error.code, message: error.message });
    }
    if (!(await this.deps.entitlements.has(identity.wallet, offer.route))) {
      if (hasPayment) return undefined;
      return this.challenge(c, offer, "not_entitled: this wallet has not paid for this route yet");
    }
    const body = await handler(new Hooks().context(identity.wallet, "siwx", () => undefined));
    c.header("Cache-Control", "private");
    return c.json(body, 200);
  }

  private async payWithX402(
    c: Context,
    offer: Offer,
    header: string,
    handler: PaidHandler,
  ): Promise<Response> {
    const decoded = decodePaymentHeader(header);
    if ("invalid" in decoded) return this.challenge(c, offer, decoded.invalid);
    const payload: PaymentPayload = decoded;
    const expected = await this.requirementsFor(offer);
    const mismatch = requirementsMismatch(payload.accepted, expected);
    if (mismatch) return this.challenge(c, offer, mismatch);
    const claimKey = claimKeyOf(payload);
    const claimedPayer = (payerOf(payload) ?? "").toLowerCase();
    const verify = async () =>
      this.deps.x402.verify(payload, expected).catch((error: Error) => ({
        isValid: false,
        invalidReason: "verification_unavailable",
        invalidMessage: error.message,
        payer: undefined,
      }));

    const idempotency = await this.beginIdempotent(c, offer, claimedPayer, claimKey);
    if (idempotency?.kind === "replay") {
      // The same authorisation again, or a fresh valid one from the same payer: serve what was paid for.
      if (idempotency.claimKey === claimKey || (await verify()).isValid) return idempotency.response;
      return this.challenge(c, offer, "invalid_payment: the retry's authorisation is not valid");
    }
    const verification = await verify();
    const payer = (verification.payer ?? claimedPayer).toLowerCase();
    if (!verification.isValid || payer !== claimedPayer) {
      await idempotency?.release();
      return this.challenge(c, offer, verification.invalidReason ?? "invalid_payment");
    }

    const paymentId = await this.deps.ledger.claim({
      route: offer.route,
      rail: "x402",
      scheme: expected.scheme,
      network: expected.network,
      asset: expected.asset,
      payer,
      claimKey,
      authorizedAtomic: BigInt(expected.amount),
      idempotencyKey: idempotency?.key,
    });
    if (!paymentId) {
      await idempotency?.release();
      return this.challenge(c, offer, "payment_already_used: this authorisation was already presented");
    }

    const maxAtomic = BigInt(expected.amount);
    const meter = new ChargeMeter(maxAtomic);
    const hooks = new Hooks();
    const charge = expected.scheme === "upto" ? (usd: string) => meter.charge(usd) : () => undefined;
    let body: Record<string, unknown>;
    let amount: bigint;
    try {
      body = await handler(hooks.context(payer, "x402", charge));
      amount = expected.scheme === "upto" ? meter.charged : maxAtomic;
      if (amount <= 0n) throw new Error(`${offer.route}: an upto handler must charge more than zero`);
      for (const hook of hooks.before) await hook(paymentId);
    } catch (error) {
      await this.deps.ledger.canceled(paymentId, error instanceof Error ? error.message : "handler failed");
      await idempotency?.release();
      throw error;
    }

    const settlement: SettleResponse = await this.deps.x402
      .settle(payload, expected, amount)
      .catch((error: Error) => ({
        success: false,
        errorReason: "settlement_unavailable",
        errorMessage: error.message,
        transaction: "",
        network: expected.network,
      }));
    if (!settlement.success) {
      const reason = settlement.errorReason ?? "settlement_failed";
      const detail = settlement.errorMessage ? `: ${settlement.errorMessage}` : "";
      await this.deps.ledger.failed(paymentId, `${reason}${detail}`);
      for (const hook of hooks.failure) await hook();
      await idempotency?.release();
      return this.challenge(c, offer, `settlement_failed: ${reason}`);
    }
    await this.deps.ledger.settled(paymentId, amount, settlement.transaction);
    for (const hook of hooks.after) await hook(paymentId);
    if (offer.siwxReplay) await this.deps.entitlements.grant(payer, offer.route, paymentId);

    const headers = {
      "PAYMENT-RESPONSE": encodePaymentResponseHeader(settlement),
      "Cache-Control": "private",
    };
    await idempotency?.complete({ status: 200, body, headers });
    return c.json(body, 200, headers);
  }

  private async payWithMpp(c: Context, offer: Offer, handler: PaidHandler): Promise<Response> {
    const mpp = this.deps.mpp as MppRail;
    const price = (offer.mpp as NonNullable<Offer["mpp"]>).priceUsd;
    const outcome = await mpp.charge(c.req.raw, price);
    if (outcome.kind === "challenge") return this.challenge(c, offer, outcome.reason);
    const payer = outcome.payer.toLowerCase();
    const idempotency = await this.beginIdempotent(c, offer, payer, `mpp:${outcome.reference}`);
    if (idempotency?.kind === "replay") return idempotency.response;
    await this.deps.ledger.recordSettled({
      route: offer.route,
      rail: "mpp",
      scheme: "charge",
      network: outcome.network,
      asset: outcome.currency,
      payer,
      claimKey: `mpp:${outcome.reference}`,
      authorizedAtomic: usdToAtomic(price),
      settledAtomic: usdToAtomic(price),
      reference: outcome.reference,
      idempotencyKey: idempotency?.key,
    });
    const body = await handler(new Hooks().context(payer, "mpp", () => undefined));
    const headers = { ...outcome.receiptHeaders, "Cache-Control": "private" };
    await idempotency?.complete({ status: 200, body, headers });
    return c.json(body, 200, headers);
  }

  private async beginIdempotent(
    c: Context,
    offer: Offer,
    payer: string,
    claimKey: string,
  ): Promise<IdempotentRun | { kind: "replay"; response: Response; claimKey: string } | undefined> {
    const key = requestHeader(c, "idempotency-key");
    if (key === undefined) return undefined;
    if (!IDEMPOTENCY_KEY.test(key)) {
      throw new ApiError("BAD_REQUEST", "Idempotency-Key must be 1 to 255 printable ASCII characters.");
    }
    const store = this.deps.idempotency;
    const hash = createHash("sha256")
      .update(JSON.stringify(offer.request ?? null))
      .digest("hex");
    const begun = await store.begin(offer.route, key, payer, hash, claimKey);
    if (begun.kind === "replay") {
      const stored = begun.response;
      const response = c.json(stored.body as object, stored.status as 200, {
        ...stored.headers,
        "Idempotent-Replayed": "true",
      });
      return { kind: "replay", response, claimKey: begun.claimKey };
    }
    if (begun.kind === "mismatch") {
      throw new ApiError("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was used with a different request.");
    }
    if (begun.kind === "in_progress") {
      throw new ApiError(
        "REQUEST_IN_PROGRESS",
        "A request with this Idempotency-Key is still running.",
        {},
        {
          "Retry-After": "1",
        },
      );
    }
    return {
      kind: "run",
      key,
      complete: (response) => store.complete(offer.route, key, payer, response),
      release: () => store.release(offer.route, key, payer),
    };
  }
}

type IdempotentRun = {
  kind: "run";
  key: string;
  complete(response: StoredResponse): Promise<void>;
  release(): Promise<void>;
};

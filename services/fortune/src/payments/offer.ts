import type { X402Scheme } from "@app/payments";

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
  /**
   * Whether the route takes one more paid call now (a rate limit); throws the refusal. Runs before
   * a 402 is issued, and for a paying request after its `Idempotency-Key` lookup, so a retry of a
   * paid call gets its stored response rather than the limit.
   */
  admit?: () => Promise<void>;
};

/** How a paid request was paid for. */
export type PaidWith = "x402" | "mpp" | "siwx";

/** What a paid handler sees: who pays, and how to charge. */
export type PaidContext = {
  payer: string;
  paidWith: PaidWith;
  /** For `upto`: adds to what will be settled (over the cap → 400 `CHARGE_OVER_CAP`). No-op otherwise. */
  charge(usd: string): void;
  /**
   * Runs after the handler, before settlement, with the payment's id; throwing refuses the request
   * and settles nothing. What it reserves is undone by the gate's `onPaymentFailed` if the
   * settlement then fails, now or when the chain says so later.
   */
  beforeSettle(hook: (paymentId: string) => Promise<void>): void;
};

export type PaidHandler = (ctx: PaidContext) => Promise<Record<string, unknown>>;

/** A handler run's context and the hooks it registered. */
export function paidContext(
  payer: string,
  paidWith: PaidWith,
  charge: (usd: string) => void = () => undefined,
): { context: PaidContext; beforeSettle: ((paymentId: string) => Promise<void>)[] } {
  const beforeSettle: ((paymentId: string) => Promise<void>)[] = [];
  return {
    context: { payer, paidWith, charge, beforeSettle: (hook) => void beforeSettle.push(hook) },
    beforeSettle,
  };
}

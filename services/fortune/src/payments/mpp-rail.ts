/** The outcome of presenting an MPP credential for a one-shot charge. */
export type MppChargeOutcome =
  | { kind: "challenge"; reason: string; body?: Record<string, unknown> }
  | {
      kind: "paid";
      payer: string;
      /** Transaction hash (or receipt reference) of the settled charge. */
      reference: string;
      network: string;
      currency: string;
      receiptHeaders: Record<string, string>;
    };

/**
 * The MPP rail as the payment gate uses it: challenges for a price, and a charge
 * that verifies and settles a credential (the MPP server settles before answering).
 */
export interface MppRail {
  /** `WWW-Authenticate: Payment …` values for a one-shot charge at this price. */
  challenges(request: Request, priceUsd: string): Promise<string[]>;
  charge(request: Request, priceUsd: string): Promise<MppChargeOutcome>;
}

import { errorSummary } from "@app/core";
import type { FacilitatorClient } from "@x402/core/server";
import { x402ResourceServer } from "@x402/core/server";
import type {
  PaymentPayload,
  PaymentRequired,
  PaymentRequirements,
  SettleResponse,
  VerifyResponse,
} from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { UptoEvmScheme } from "@x402/evm/upto/server";
import { isSignedByPayer } from "./authorization.ts";
import type { X402Payment } from "./payment-payload.ts";
import type { AuthorizationFacts, SettlementChain, SettlementOutcome } from "./settlement-chain.ts";

export type X402Scheme = "exact" | "upto";

/** The token x402 payments are made in, with its EIP-712 domain. */
export type X402Asset = { address: `0x${string}`; name: string; version: string; decimals: number };

export type X402RailOptions = {
  facilitator: FacilitatorClient;
  network: `eip155:${number}`;
  asset: X402Asset;
  payTo: `0x${string}`;
  /** Where settlements the facilitator did not confirm are looked up. */
  chain: SettlementChain;
  /** How long a signed authorisation stays valid. */
  maxTimeoutSeconds?: number;
};

/** A settlement to look up on chain: its transaction when one is known, and the authorisation it spends. */
export type SettlementLookup = { transaction?: string; authorization: AuthorizationFacts };

/** The x402 rail as the payment gate uses it. */
export interface X402Rail {
  readonly network: `eip155:${number}`;
  /** The requirements for paying `atomic` units (the maximum, for `upto`). */
  requirements(scheme: X402Scheme, atomic: bigint): Promise<PaymentRequirements>;
  /** The `PaymentRequired` object a 402 carries. */
  paymentRequired(input: PaymentRequiredInput): PaymentRequired;
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  /**
   * Settles `atomic` units. Never throws for a refusal (`success: false` with a reason); a
   * broadcast whose receipt did not come in time is `settlement_pending` with its transaction.
   */
  settle(payload: PaymentPayload, requirements: PaymentRequirements, atomic: bigint): Promise<SettleResponse>;
  /**
   * Whether the payment's signature is its payer's, checked offline: what a replay shows before
   * it gets a stored response (the authorisation itself may be spent by then).
   */
  isSignedByPayer(payment: X402Payment, requirements: PaymentRequirements): boolean;
  /** What the chain says about a settlement the facilitator did not confirm. */
  settlementOutcome(lookup: SettlementLookup): Promise<SettlementOutcome>;
}

export type PaymentRequiredInput = {
  accepts: PaymentRequirements[];
  url: string;
  description: string;
  error?: string;
  extensions?: Record<string, unknown>;
};

/** The `PaymentRequired` object of a 402, x402 version 2. */
export function buildPaymentRequired(input: PaymentRequiredInput): PaymentRequired {
  return {
    x402Version: 2,
    ...(input.error ? { error: input.error } : {}),
    resource: { url: input.url, description: input.description, mimeType: "application/json" },
    accepts: input.accepts,
    ...(input.extensions ? { extensions: input.extensions } : {}),
  };
}

/**
 * The x402 rail over a facilitator (in-process on the local chain, or hosted),
 * through the official `@x402/core` resource server with the `@x402/evm` schemes.
 */
export class FacilitatorX402Rail implements X402Rail {
  readonly network: `eip155:${number}`;
  readonly asset: X402Asset;
  readonly payTo: `0x${string}`;
  private readonly chain: SettlementChain;
  private readonly facilitator: FacilitatorClient;
  private readonly server: x402ResourceServer;
  private readonly maxTimeoutSeconds: number;
  private ready?: Promise<void>;
  private readonly built = new Map<string, Promise<PaymentRequirements>>();

  constructor(options: X402RailOptions) {
    this.network = options.network;
    this.asset = options.asset;
    this.payTo = options.payTo;
    this.chain = options.chain;
    this.facilitator = options.facilitator;
    this.maxTimeoutSeconds = options.maxTimeoutSeconds ?? 300;
    this.server = new x402ResourceServer(options.facilitator)
      .register(options.network, new ExactEvmScheme())
      .register(options.network, new UptoEvmScheme());
  }

  /** Learns the facilitator's supported kinds (upto needs its signer address); retried on failure. */
  initialize(): Promise<void> {
    this.ready ??= this.server.initialize().catch((error) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  /**
   * Fails, saying why, unless the facilitator answers `/supported` with each scheme a service
   * takes (default both) on this network.
   */
  async checkSupported(schemes: readonly X402Scheme[] = ["exact", "upto"]): Promise<void> {
    const supported = await this.facilitator.getSupported().catch((error: unknown) => {
      throw new Error(`did not answer /supported (${errorSummary(error).message})`);
    });
    const missing = schemes.filter(
      (scheme) => !supported.kinds.some((kind) => kind.scheme === scheme && kind.network === this.network),
    );
    if (missing.length > 0) throw new Error(`does not support ${missing.join(" and ")} on ${this.network}`);
    await this.initialize();
  }

  /** Requirements never change for a scheme and amount once the facilitator is known: built once each. */
  requirements(scheme: X402Scheme, atomic: bigint): Promise<PaymentRequirements> {
    const key = `${scheme}:${atomic}`;
    let built = this.built.get(key);
    if (!built) {
      built = this.buildRequirements(scheme, atomic);
      this.built.set(key, built);
      built.catch(() => this.built.delete(key));
    }
    return built;
  }

  private async buildRequirements(scheme: X402Scheme, atomic: bigint): Promise<PaymentRequirements> {
    await this.initialize();
    const [requirements] = await this.server.buildPaymentRequirements({
      scheme,
      network: this.network,
      payTo: this.payTo,
      maxTimeoutSeconds: this.maxTimeoutSeconds,
      price: {
        amount: atomic.toString(),
        asset: this.asset.address,
        extra: { name: this.asset.name, version: this.asset.version },
      },
    });
    if (!requirements) throw new Error(`No ${scheme} requirements for ${this.network}`);
    return requirements;
  }

  paymentRequired(input: PaymentRequiredInput): PaymentRequired {
    return buildPaymentRequired(input);
  }

  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
    return this.server.verifyPayment(payload, requirements);
  }

  settle(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    atomic: bigint,
  ): Promise<SettleResponse> {
    const overrides = requirements.scheme === "upto" ? { amount: atomic.toString() } : undefined;
    return this.server.settlePayment(payload, requirements, undefined, undefined, overrides);
  }

  isSignedByPayer(payment: X402Payment, requirements: PaymentRequirements): boolean {
    return isSignedByPayer(payment.authorization, requirements);
  }

  settlementOutcome(lookup: SettlementLookup): Promise<SettlementOutcome> {
    return this.chain.outcome(lookup);
  }
}

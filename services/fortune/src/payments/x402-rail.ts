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

export type X402Scheme = "exact" | "upto";

/** The token x402 payments are made in, with its EIP-712 domain. */
export type X402Asset = { address: `0x${string}`; name: string; version: string; decimals: number };

export type X402RailOptions = {
  facilitator: FacilitatorClient;
  network: `eip155:${number}`;
  asset: X402Asset;
  payTo: `0x${string}`;
  /** How long a signed authorisation stays valid. */
  maxTimeoutSeconds?: number;
};

/** The x402 rail as the payment gate uses it. */
export interface X402Rail {
  readonly network: `eip155:${number}`;
  /** The requirements for paying `atomic` units (the maximum, for `upto`). */
  requirements(scheme: X402Scheme, atomic: bigint): Promise<PaymentRequirements>;
  /** The `PaymentRequired` object a 402 carries. */
  paymentRequired(input: PaymentRequiredInput): PaymentRequired;
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements, atomic: bigint): Promise<SettleResponse>;
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
  private readonly server: x402ResourceServer;
  private readonly maxTimeoutSeconds: number;
  private ready?: Promise<void>;
  private readonly built = new Map<string, Promise<PaymentRequirements>>();

  constructor(options: X402RailOptions) {
    this.network = options.network;
    this.asset = options.asset;
    this.payTo = options.payTo;
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
}

/**
 * A service's payment rails, built once from where they run: a chain someone else runs for the
 * service (the launcher's local chain, a test harness's), or hosted networks from configuration.
 * Both give the same pieces: the x402 rail over a facilitator and the MPP rail.
 *
 * @module
 */
import { scrubUrls } from "@app/core";
import { MppRail } from "../mpp/charge-rail.ts";
import { createMppRails, type MppRails, type MppRailsConfig } from "../mpp/rails.ts";
import type { SessionChannels } from "../mpp/session-channels.ts";
import { cdpFacilitatorAuth } from "../x402/cdp-auth.ts";
import { createHostedFacilitator, createLocalFacilitator } from "../x402/local-facilitator.ts";
import { FacilitatorX402Rail, type X402Scheme } from "../x402/rail.ts";
import { EvmSettlementChain } from "../x402/settlement-chain.ts";
import type { HostedRails } from "./hosted-config.ts";

/**
 * A chain someone else runs for a service, and what the service uses on it: an in-process x402
 * facilitator signing with `x402.facilitatorKey`, and the MPP servers on `mpp.rpcUrl`. A service
 * never starts a chain itself: it is given one, which production entry points do not do.
 */
export type ProvidedChain = {
  /** Who is paid, on both rails. */
  payTo: `0x${string}`;
  x402: {
    rpcUrl: string;
    chainId: number;
    network: `eip155:${number}`;
    asset: { address: `0x${string}`; name: string; version: string; decimals: number };
    /** The in-process facilitator's signer: submits settlements and pays their gas. */
    facilitatorKey: `0x${string}`;
  };
  mpp: {
    rpcUrl: string;
    chainId: number;
    currency: `0x${string}`;
    decimals: number;
    /** Settles and closes session channels. */
    operatorKey: `0x${string}`;
    /** The HMAC key of MPP challenges (and the root of the service's other derived keys). */
    secretKey: string;
  };
  /** Shown by the launcher (banner, `local.json`): demo wallet, chain URLs. */
  credentials: Record<string, unknown>;
  /** Stops the chain (after the service's own rails). */
  stop(): Promise<void>;
};

/** The rails a service runs on. */
export type PaymentRails = {
  x402: FacilitatorX402Rail;
  mpp: MppRail;
  /** The MPP currency advertised in discovery. */
  mppCurrency: `0x${string}`;
  /** MPP session channels outside a request, for a settler. */
  sessionChannels: SessionChannels;
  /** The service's HMAC secret (the MPP secret), from which other keys are derived (SIWX nonces). */
  secret: string;
  /** What a launcher shows of the rails (a provided chain's demo wallet and URLs; nothing hosted). */
  credentials: Record<string, unknown>;
};

/** What a service sets on its rails besides where they run. */
export type RailsOptions = {
  /** The realm MPP challenges name (the public host). */
  realm: string;
  /** The MPP store (`createDbStore`, in the service's schema, sealed). */
  store: MppRailsConfig["store"];
  /** Local: how long the facilitator waits for a settlement's receipt before calling it pending. */
  settlementTimeoutMs?: number;
  voucherWaitMs?: number;
  onSessionSettlement?: MppRailsConfig["onSessionSettlement"];
};

function mppRailOn(
  mpp: MppRails,
  chain: { rpcUrl: string; chainId: number; currency: `0x${string}` },
  payTo: `0x${string}`,
) {
  return new MppRail(mpp, {
    rpcUrl: chain.rpcUrl,
    chainId: chain.chainId,
    currency: chain.currency,
    recipient: payTo,
  });
}

/**
 * Rails on a provided chain: the in-process x402 facilitator (about 2 ms of CPU per paid call
 * since its native EIP-3009 path: a worker thread's two message hops cost more than they spare the
 * event loop) and the MPP servers on the chain's MPP RPC.
 */
export function railsOnProvidedChain(chain: ProvidedChain, options: RailsOptions): PaymentRails {
  const facilitator = createLocalFacilitator({
    rpcUrl: chain.x402.rpcUrl,
    chainId: chain.x402.chainId,
    signerPrivateKey: chain.x402.facilitatorKey,
    confirmationTimeoutMs: options.settlementTimeoutMs,
  });
  const mpp = createMppRails({
    rpcUrl: chain.mpp.rpcUrl,
    chainId: chain.mpp.chainId,
    currency: chain.mpp.currency,
    decimals: chain.mpp.decimals,
    recipient: chain.payTo,
    operatorPrivateKey: chain.mpp.operatorKey,
    secretKey: chain.mpp.secretKey,
    realm: options.realm,
    store: options.store,
    voucherWaitMs: options.voucherWaitMs,
    onSessionSettlement: options.onSessionSettlement,
  });
  return {
    secret: chain.mpp.secretKey,
    x402: new FacilitatorX402Rail({
      facilitator,
      network: chain.x402.network,
      asset: { ...chain.x402.asset },
      payTo: chain.payTo,
      chain: new EvmSettlementChain(chain.x402.rpcUrl),
    }),
    mpp: mppRailOn(mpp, chain.mpp, chain.payTo),
    mppCurrency: chain.mpp.currency,
    sessionChannels: mpp.channels,
    credentials: chain.credentials,
  };
}

/** The headers a hosted facilitator is called with: none, a fixed bearer token, or a CDP JWT per request. */
function facilitatorAuthHeaders(rails: HostedRails) {
  const auth = rails.facilitatorAuth;
  if (auth.kind === "cdp")
    return cdpFacilitatorAuth({ keyId: auth.keyId, secret: auth.secret }, rails.facilitatorUrl);
  return auth.kind === "bearer" ? { Authorization: `Bearer ${auth.token}` } : undefined;
}

/**
 * Hosted rails: a facilitator URL, networks and keys from configuration; nothing local is
 * started. The facilitator must answer `/supported` with each of `schemes` on the configured
 * network, or this fails saying which: a gap found at start beats one found by the first payer.
 */
export async function hostedPaymentRails(
  rails: HostedRails,
  options: RailsOptions & { schemes: readonly X402Scheme[] },
): Promise<PaymentRails> {
  const mpp = createMppRails({
    rpcUrl: rails.mpp.rpcUrl,
    chainId: rails.mpp.chainId,
    currency: rails.mpp.currency,
    decimals: 6,
    recipient: rails.payTo,
    operatorPrivateKey: rails.mpp.operatorKey,
    secretKey: rails.mpp.secretKey,
    realm: options.realm,
    store: options.store,
    voucherWaitMs: options.voucherWaitMs,
    onSessionSettlement: options.onSessionSettlement,
  });
  const x402 = new FacilitatorX402Rail({
    facilitator: createHostedFacilitator({
      url: rails.facilitatorUrl,
      authHeaders: facilitatorAuthHeaders(rails),
    }),
    network: rails.network,
    asset: { ...rails.asset, decimals: 6 },
    chain: new EvmSettlementChain(rails.x402RpcUrl),
    payTo: rails.payTo,
  });
  await x402.checkSupported(options.schemes).catch((error: Error) => {
    throw new Error(`the x402 facilitator at ${scrubUrls(rails.facilitatorUrl)} ${error.message}`);
  });
  return {
    secret: rails.mpp.secretKey,
    x402,
    mpp: mppRailOn(mpp, rails.mpp, rails.payTo),
    mppCurrency: rails.mpp.currency,
    sessionChannels: mpp.channels,
    credentials: {},
  };
}

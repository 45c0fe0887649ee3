import { createTextSealer, type Logger, scrubUrls } from "@app/core";
import type { Database } from "@app/db";
import {
  cdpFacilitatorAuth,
  createDbStore,
  createHostedFacilitator,
  createLocalFacilitator,
  createMppRails,
  EvmSettlementChain,
  type MppRailsConfig,
  type SessionChannels,
} from "@app/payments";
import type { FortuneConfig, HostedRailsConfig, LocalRailsConfig } from "./config.ts";
import { MppRail } from "./payments/mpp-rail.ts";
import { FacilitatorX402Rail, type X402Rail } from "./payments/x402-rail.ts";

/** The payment rails the service runs on, and what `npm start` tells the user about them. */
export type Rails = {
  x402: X402Rail;
  mpp: MppRail;
  /** The MPP currency advertised in discovery. */
  mppCurrency: `0x${string}`;
  /** MPP session channels outside a request, for the settler. */
  sessionChannels: SessionChannels;
  /** The service's HMAC secret (the MPP secret), from which other keys are derived (SIWX nonces). */
  secret: string;
  credentials: Record<string, unknown>;
  stop(): Promise<void>;
};

type LocalConfig = FortuneConfig & { rails: LocalRailsConfig };
type HostedConfig = FortuneConfig & { rails: { mode: "hosted" } };

/** The configuration's rails are hosted ones (narrows the whole configuration by its rails' mode). */
const isHosted = (config: FortuneConfig): config is HostedConfig => config.rails.mode === "hosted";
const isLocal = (config: FortuneConfig): config is LocalConfig => config.rails.mode === "local";

/**
 * A chain someone else runs for this service (the launcher's local chain, a test harness's), and
 * what the service uses on it: an in-process x402 facilitator signing with `x402.facilitatorKey`, and
 * the MPP servers on `mpp.rpcUrl`. The service never starts a chain itself: with `FORTUNE_RAILS=local`
 * it is given one (`createFortuneService({ localChain })`), which production entry points do not do.
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

/** Starts (or finds) the chain for `FORTUNE_RAILS=local`, with the service's config (port, chain id, `DATA_DIR`). */
export type LocalChainProvider = (config: LocalConfig, logger: Logger) => Promise<ProvidedChain>;

/** What the rails report back to the service. */
export type RailsHooks = {
  /** A session channel's settlement or close confirmed on chain (mppx's `onSessionSettlement`). */
  onSessionSettlement?: MppRailsConfig["onSessionSettlement"];
};

/** The MPP store; its values (channel state with the payers' vouchers) are sealed with a key derived from `secret`. */
export const mppStore = (db: Database, secret: string) =>
  createDbStore({ db, table: "fortune.mpp_store", sealer: createTextSealer(secret, "fortune.mpp_store") });

/**
 * Local mode: the provided chain, the in-process x402 facilitator (about 2 ms of CPU per paid call
 * since its native EIP-3009 path: a worker thread's two message hops cost more than they spare the
 * event loop) and the MPP servers on the chain's MPP RPC.
 */
async function providedRails(
  config: LocalConfig,
  db: Database,
  logger: Logger,
  hooks: RailsHooks,
  provide: LocalChainProvider,
): Promise<Rails> {
  const chain = await provide(config, logger);
  const stops: (() => Promise<void>)[] = [() => chain.stop()];
  const stop = async () => {
    for (const step of stops.reverse()) await step();
  };
  try {
    const facilitator = createLocalFacilitator({
      rpcUrl: chain.x402.rpcUrl,
      chainId: chain.x402.chainId,
      signerPrivateKey: chain.x402.facilitatorKey,
      confirmationTimeoutMs: config.settlementTimeoutMs,
    });
    const mpp = createMppRails({
      rpcUrl: chain.mpp.rpcUrl,
      chainId: chain.mpp.chainId,
      currency: chain.mpp.currency,
      decimals: chain.mpp.decimals,
      recipient: chain.payTo,
      operatorPrivateKey: chain.mpp.operatorKey,
      secretKey: chain.mpp.secretKey,
      realm: config.mppRealm,
      store: mppStore(db, chain.mpp.secretKey),
      voucherWaitMs: config.voucherWaitMs,
      onSessionSettlement: hooks.onSessionSettlement,
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
      mpp: new MppRail(mpp, {
        rpcUrl: chain.mpp.rpcUrl,
        chainId: chain.mpp.chainId,
        currency: chain.mpp.currency,
        recipient: chain.payTo,
      }),
      mppCurrency: chain.mpp.currency,
      sessionChannels: mpp.channels,
      credentials: chain.credentials,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The headers a hosted facilitator is called with: none, a fixed bearer token, or a CDP JWT per request. */
function facilitatorAuthHeaders(rails: HostedRailsConfig) {
  const auth = rails.facilitatorAuth;
  if (auth.kind === "cdp")
    return cdpFacilitatorAuth({ keyId: auth.keyId, secret: auth.secret }, rails.facilitatorUrl);
  return auth.kind === "bearer" ? { Authorization: `Bearer ${auth.token}` } : undefined;
}

/**
 * Hosted mode: a facilitator URL, networks and keys from config; nothing local is started. The
 * facilitator must answer `/supported` with both schemes on the configured network, or the
 * service does not start: a gap found at start beats one found by the first payer.
 */
async function hostedRails(
  config: HostedConfig,
  db: Database,
  logger: Logger,
  hooks: RailsHooks,
): Promise<Rails> {
  const rails = config.rails;
  const mpp = createMppRails({
    rpcUrl: rails.mpp.rpcUrl,
    chainId: rails.mpp.chainId,
    currency: rails.mpp.currency,
    decimals: 6,
    recipient: rails.payTo,
    operatorPrivateKey: rails.mpp.operatorKey,
    secretKey: rails.mpp.secretKey,
    realm: config.mppRealm,
    store: mppStore(db, rails.mpp.secretKey),
    voucherWaitMs: config.voucherWaitMs,
    onSessionSettlement: hooks.onSessionSettlement,
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
  await x402.checkSupported().catch((error: Error) => {
    throw new Error(`the x402 facilitator at ${scrubUrls(rails.facilitatorUrl)} ${error.message}`);
  });
  logger.info({ network: rails.network }, "the hosted facilitator supports exact and upto");
  return {
    secret: rails.mpp.secretKey,
    x402,
    mpp: new MppRail(mpp, {
      rpcUrl: rails.mpp.rpcUrl,
      chainId: rails.mpp.chainId,
      currency: rails.mpp.currency,
      recipient: rails.payTo,
    }),
    mppCurrency: rails.mpp.currency,
    sessionChannels: mpp.channels,
    credentials: {},
    stop: async () => undefined,
  };
}

/**
 * The rails the configuration selects. `FORTUNE_RAILS=local` needs `localChain`, which only a
 * launcher, the service's local entry (`local/main.ts`) or a test harness passes.
 */
export function startRails(
  config: FortuneConfig,
  db: Database,
  logger: Logger,
  hooks: RailsHooks = {},
  localChain?: LocalChainProvider,
): Promise<Rails> {
  if (isHosted(config)) return hostedRails(config, db, logger, hooks);
  if (!localChain || !isLocal(config)) {
    return Promise.reject(
      new Error(
        "FORTUNE_RAILS=local needs a local chain, which this entry point does not start: run " +
          "`npm start` (the whole platform) or `npm start -w services/fortune`, or set FORTUNE_RAILS=hosted",
      ),
    );
  }
  return providedRails(config, db, logger, hooks, localChain);
}

import { join } from "node:path";
import { createTextSealer, type Logger, scrubUrls } from "@app/core";
import type { Database } from "@app/db";
import {
  bootstrapLocalChain,
  cdpFacilitatorAuth,
  createDbStore,
  createHostedFacilitator,
  createMppRails,
  EvmSettlementChain,
  LOCAL_DEV_ACCOUNTS,
  type MppRailsConfig,
  type SessionChannels,
  startAnvil,
  startFacilitatorThread,
  startLocalTempo,
} from "@app/payments";
import type { FortuneConfig, HostedRailsConfig } from "./config.ts";
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

/** How much LocalUSD the local demo wallet is given at first start. */
const DEMO_FUNDS_USD = "100";

/**
 * The HMAC key of local MPP challenges. LOCAL CHAINS ONLY: hosted mode takes
 * `FORTUNE_MPP_SECRET_KEY` from config.
 */
export const LOCAL_MPP_SECRET = "local-chain-only-mpp-challenge-secret-0001";

type LocalConfig = FortuneConfig & { rails: { mode: "local" } };
type HostedConfig = FortuneConfig & { rails: { mode: "hosted" } };

/** What the rails report back to the service. */
export type RailsHooks = {
  /** A session channel's settlement or close confirmed on chain (mppx's `onSessionSettlement`). */
  onSessionSettlement?: MppRailsConfig["onSessionSettlement"];
};

/** The MPP store; its values (channel state with the payers' vouchers) are sealed with a key derived from `secret`. */
export const mppStore = (db: Database, secret: string) =>
  createDbStore({ db, table: "fortune.mpp_store", sealer: createTextSealer(secret, "fortune.mpp_store") });

/**
 * Local mode: starts anvil (state kept under `DATA_DIR/chain`), installs our token,
 * the Permit2 proxies and the channel reserve, runs an in-process x402 facilitator
 * and the MPP servers on the reserve's RPC shim, and funds the demo payer.
 */
async function localRails(
  config: LocalConfig,
  db: Database,
  logger: Logger,
  hooks: RailsHooks,
): Promise<Rails> {
  const dir = join(config.dataDir, "chain");
  const anvil = await startAnvil({
    host: "127.0.0.1",
    port: config.rails.chainPort,
    chainId: config.rails.chainId,
    stateFile: join(dir, "anvil-state.json"),
  }).catch((error: Error) => {
    throw new Error(
      `the local chain did not start on 127.0.0.1:${config.rails.chainPort} ` +
        `(FORTUNE_CHAIN_PORT picks another port, 0 any free one): ${error.message}`,
    );
  });
  const stops: (() => Promise<void>)[] = [() => anvil.stop()];
  const stop = async () => {
    for (const step of stops.reverse()) await step();
  };
  try {
    const chain = await bootstrapLocalChain({
      rpcUrl: anvil.rpcUrl,
      deployerPrivateKey: LOCAL_DEV_ACCOUNTS.deployer.privateKey,
      cacheDir: join(dir, "contracts"),
    });
    const tempo = await startLocalTempo({ anvilRpcUrl: anvil.rpcUrl, cacheDir: join(dir, "contracts") });
    stops.push(() => tempo.stop());
    // Verifying and settling is mostly JavaScript: on its own thread it leaves the event loop free.
    const facilitator = startFacilitatorThread({
      rpcUrl: anvil.rpcUrl,
      chainId: chain.chainId,
      signerPrivateKey: LOCAL_DEV_ACCOUNTS.facilitator.privateKey,
      confirmationTimeoutMs: config.settlementTimeoutMs,
    });
    stops.push(() => facilitator.stop());
    const payer = LOCAL_DEV_ACCOUNTS.payer;
    if ((await chain.balanceOf(payer.address)) === 0n) {
      await chain.fund(payer.address, DEMO_FUNDS_USD);
      await chain.approvePermit2(payer.privateKey);
    }
    const payee = LOCAL_DEV_ACCOUNTS.payee.address;
    const mpp = createMppRails({
      rpcUrl: tempo.rpcUrl,
      chainId: tempo.chainId,
      currency: tempo.currency,
      decimals: tempo.decimals,
      recipient: payee,
      operatorPrivateKey: LOCAL_DEV_ACCOUNTS.mppOperator.privateKey,
      secretKey: LOCAL_MPP_SECRET,
      realm: config.mppRealm,
      store: mppStore(db, LOCAL_MPP_SECRET),
      voucherWaitMs: config.voucherWaitMs,
      onSessionSettlement: hooks.onSessionSettlement,
    });
    logger.info(
      { rpcUrl: anvil.rpcUrl, tempoRpcUrl: tempo.rpcUrl, asset: chain.asset.address },
      "local chain ready",
    );
    return {
      secret: LOCAL_MPP_SECRET,
      x402: new FacilitatorX402Rail({
        facilitator,
        network: chain.network,
        asset: { ...chain.asset },
        payTo: payee,
        chain: new EvmSettlementChain(anvil.rpcUrl),
      }),
      mpp: new MppRail(mpp, {
        rpcUrl: tempo.rpcUrl,
        chainId: tempo.chainId,
        currency: tempo.currency,
        recipient: payee,
      }),
      mppCurrency: tempo.currency,
      sessionChannels: mpp.channels,
      credentials: {
        demoWallet: { address: payer.address, privateKey: payer.privateKey, note: "local chain only" },
        chain: {
          rpcUrl: anvil.rpcUrl,
          tempoRpcUrl: tempo.rpcUrl,
          chainId: chain.chainId,
          x402Asset: chain.asset.address,
          mppCurrency: tempo.currency,
        },
      },
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

/** The rails the configuration selects. */
export function startRails(
  config: FortuneConfig,
  db: Database,
  logger: Logger,
  hooks: RailsHooks = {},
): Promise<Rails> {
  return config.rails.mode === "local"
    ? localRails(config as LocalConfig, db, logger, hooks)
    : hostedRails(config as HostedConfig, db, logger, hooks);
}

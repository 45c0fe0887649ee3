import { createTextSealer, type Logger } from "@app/core";
import type { Database } from "@app/db";
import {
  createDbStore,
  hostedPaymentRails,
  type MppRailsConfig,
  type PaymentRails,
  type ProvidedChain,
  railsOnProvidedChain,
} from "@app/payments";
import type { FortuneConfig, LocalRailsConfig } from "./config.ts";

export type { ProvidedChain };

/** The payment rails the service runs on, and what `npm start` tells the user about them. */
export type Rails = PaymentRails & { stop(): Promise<void> };

type LocalConfig = FortuneConfig & { rails: LocalRailsConfig };
type HostedConfig = FortuneConfig & { rails: { mode: "hosted" } };

/** The configuration's rails are hosted ones (narrows the whole configuration by its rails' mode). */
const isHosted = (config: FortuneConfig): config is HostedConfig => config.rails.mode === "hosted";
const isLocal = (config: FortuneConfig): config is LocalConfig => config.rails.mode === "local";

/**
 * Starts (or finds) the chain for `FORTUNE_RAILS=local`, with the service's config (port, chain id,
 * `DATA_DIR`). The service never starts a chain itself: with `FORTUNE_RAILS=local` it is given one
 * (`createFortuneService({ localChain })`), which production entry points do not do.
 */
export type LocalChainProvider = (config: LocalConfig, logger: Logger) => Promise<ProvidedChain>;

/** What the rails report back to the service. */
export type RailsHooks = {
  /** A session channel's settlement or close confirmed on chain (mppx's `onSessionSettlement`). */
  onSessionSettlement?: MppRailsConfig["onSessionSettlement"];
};

/** The MPP store; its values (channel state with the payers' vouchers) are sealed with a key derived from `secret`. */
export const mppStore = (db: Database, secret: string) =>
  createDbStore({ db, table: "fortune.mpp_store", sealer: createTextSealer(secret, "fortune.mpp_store") });

/** The options every rail of the service is built with. */
function railsOptions(config: FortuneConfig, db: Database, secret: string, hooks: RailsHooks) {
  return {
    realm: config.mppRealm,
    store: mppStore(db, secret),
    settlementTimeoutMs: config.settlementTimeoutMs,
    voucherWaitMs: config.voucherWaitMs,
    onSessionSettlement: hooks.onSessionSettlement,
  };
}

/** Local mode: the provided chain, its in-process x402 facilitator and the MPP servers on its MPP RPC. */
async function providedRails(
  config: LocalConfig,
  db: Database,
  logger: Logger,
  hooks: RailsHooks,
  provide: LocalChainProvider,
): Promise<Rails> {
  const chain = await provide(config, logger);
  try {
    const rails = railsOnProvidedChain(chain, railsOptions(config, db, chain.mpp.secretKey, hooks));
    return { ...rails, stop: () => chain.stop() };
  } catch (error) {
    await chain.stop();
    throw error;
  }
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
  const hosted = config.rails;
  const rails = await hostedPaymentRails(hosted, {
    ...railsOptions(config, db, hosted.mpp.secretKey, hooks),
    schemes: ["exact", "upto"],
  });
  logger.info({ network: hosted.network }, "the hosted facilitator supports exact and upto");
  return { ...rails, stop: async () => undefined };
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

import { createTextSealer, type Logger } from "@app/core";
import type { Database } from "@app/db";
import {
  createDbStore,
  hostedPaymentRails,
  type PaymentRails,
  type ProvidedChain,
  railsOnProvidedChain,
} from "@app/payments";
import type { GatewayConfig } from "./config.ts";

/** The payment rails self-serve credit is paid on, and how to stop them. */
export type GatewayRails = PaymentRails & { stop(): Promise<void> };

/**
 * Starts (or finds) the local chain for `GATEWAY_RAILS=local`, with the gateway's settings (port,
 * chain id, `DATA_DIR`). The gateway never starts a chain itself: it is given one
 * (`createGatewayService({ localChain })`) by the launcher, which gives fortune the same chain.
 */
export type GatewayChainProvider = (
  config: GatewayConfig & { rails: { mode: "local" } },
  logger: Logger,
) => Promise<ProvidedChain>;

/** The MPP store (charge replay markers), sealed with a key derived from the MPP secret. */
const mppStore = (db: Database, secret: string) =>
  createDbStore({ db, table: "gateway.mpp_store", sealer: createTextSealer(secret, "gateway.mpp_store") });

/**
 * The rails the configuration selects, or none: `off`, or `local` with no chain given (a
 * production entry, a bench), when the gateway runs without self-serve accounts and credit (a
 * warning says so). Hosted rails must find `exact` on the facilitator, or the start fails.
 */
export async function startGatewayRails(
  config: GatewayConfig,
  db: Database,
  logger: Logger,
  localChain?: GatewayChainProvider,
): Promise<GatewayRails | undefined> {
  const rails = config.rails;
  const options = { realm: config.mppRealm, settlementTimeoutMs: config.settlementTimeoutMs };
  if (rails.mode === "off") return undefined;
  if (rails.mode === "hosted") {
    const hosted = await hostedPaymentRails(rails, {
      ...options,
      store: mppStore(db, rails.mpp.secretKey),
      schemes: ["exact"],
    });
    logger.info({ network: rails.network }, "the hosted facilitator supports exact");
    return { ...hosted, stop: async () => undefined };
  }
  if (!localChain) {
    logger.warn(
      "GATEWAY_RAILS=local and no local chain was given: self-serve accounts and credit are off " +
        "(`npm start` gives the gateway the platform's local chain; or set GATEWAY_RAILS=hosted, or off)",
    );
    return undefined;
  }
  const chain = await localChain({ ...config, rails }, logger);
  try {
    const provided = railsOnProvidedChain(chain, { ...options, store: mppStore(db, chain.mpp.secretKey) });
    return { ...provided, stop: () => chain.stop() };
  } catch (error) {
    await chain.stop();
    throw error;
  }
}

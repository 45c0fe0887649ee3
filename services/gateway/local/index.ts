/**
 * `@app/gateway/local`: the gateway wired to the local chain (`@app/local-chain`), for the
 * launcher (`apps/local`), tests and the bench. LOCAL CHAINS ONLY: nothing under `src/` imports
 * this folder; `@app/local-chain` is a devDependency of this workspace.
 *
 * @module
 */
import { join } from "node:path";
import { type ProvideLocalChainOptions, provideLocalChain } from "@app/local-chain";
import type { ProvidedChain } from "@app/payments";
import { createGatewayService, type GatewayChainProvider } from "../src/index.ts";

/**
 * A gateway chain provider over `start` (by default a chain of its own): the local chain on the
 * gateway's settings (`GATEWAY_CHAIN_PORT`, `GATEWAY_CHAIN_ID`, state under `DATA_DIR/chain`).
 * The launcher passes its shared chain, so the gateway and fortune are paid on one.
 */
export function gatewayLocalChain(
  start: (options: ProvideLocalChainOptions) => Promise<ProvidedChain> = provideLocalChain,
): GatewayChainProvider {
  return (config, logger) =>
    start({
      dir: join(config.dataDir, "chain"),
      port: config.rails.chainPort,
      chainId: config.rails.chainId,
      portVariable: "GATEWAY_CHAIN_PORT",
      logger,
    });
}

/** The gateway on its own local chain (`GATEWAY_RAILS=local`, the default) or hosted rails. */
export const gatewayLocalService = createGatewayService({ localChain: gatewayLocalChain() });

/**
 * The fortune service on the local chain (`@app/local-chain`): what `npm start`, the service's own
 * local entry (`local/main.ts`), its test harness and the bench give `createFortuneService`.
 * LOCAL CHAINS ONLY: nothing under `src/` imports this folder.
 *
 * @module
 */
import { join } from "node:path";
import { LOCAL_MPP_SECRET, type ProvideLocalChainOptions, provideLocalChain } from "@app/local-chain";
import type { ProvidedChain } from "@app/payments";
import { createFortuneService, type LocalChainProvider } from "../src/index.ts";

export { LOCAL_MPP_SECRET };

/**
 * A fortune chain provider over `start` (by default a chain of its own): the local chain on the
 * service's settings (`FORTUNE_CHAIN_PORT`, `FORTUNE_CHAIN_ID`, state under `DATA_DIR/chain`; the
 * demo payer gets 100 LocalUSD and a Permit2 approval at first start), with the service's roles on
 * it: payee, facilitator signer, MPP operator, challenge secret. The launcher passes its shared
 * chain, so fortune and the gateway are paid on one.
 */
export function fortuneLocalChain(
  start: (options: ProvideLocalChainOptions) => Promise<ProvidedChain> = provideLocalChain,
): LocalChainProvider {
  return (config, logger) =>
    start({
      dir: join(config.dataDir, "chain"),
      port: config.rails.chainPort,
      chainId: config.rails.chainId,
      portVariable: "FORTUNE_CHAIN_PORT",
      logger,
    });
}

/** The local chain of the fortune service alone. */
export const localChainRails: LocalChainProvider = fortuneLocalChain();

/** The fortune service with its local chain (`FORTUNE_RAILS=local`, the default) or hosted rails. */
export const fortuneLocalService = createFortuneService({ localChain: localChainRails });

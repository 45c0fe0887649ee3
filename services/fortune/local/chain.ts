/**
 * The fortune service on the local chain (`@app/local-chain`): what `npm start`, the service's own
 * local entry (`local/main.ts`), its test harness and the bench give `createFortuneService`.
 * LOCAL CHAINS ONLY: nothing under `src/` imports this folder.
 *
 * @module
 */
import { join } from "node:path";
import { LOCAL_DEV_ACCOUNTS, startLocalChain } from "@app/local-chain";
import { createFortuneService, type LocalChainProvider } from "../src/index.ts";

/**
 * The HMAC key of local MPP challenges. LOCAL CHAINS ONLY: hosted mode takes
 * `FORTUNE_MPP_SECRET_KEY` from config.
 */
export const LOCAL_MPP_SECRET = "local-chain-only-mpp-challenge-secret-0001";

/**
 * Starts the local chain on the service's settings (`FORTUNE_CHAIN_PORT`, `FORTUNE_CHAIN_ID`, state
 * under `DATA_DIR/chain`; the demo payer gets 100 LocalUSD and a Permit2 approval at first start) and
 * hands the service its roles on it: payee, facilitator signer, MPP operator, challenge secret.
 */
export const localChainRails: LocalChainProvider = async (config, logger) => {
  const local = await startLocalChain({
    dir: join(config.dataDir, "chain"),
    port: config.rails.chainPort,
    chainId: config.rails.chainId,
  }).catch((error: Error) => {
    throw new Error(
      `the local chain did not start on 127.0.0.1:${config.rails.chainPort} ` +
        `(FORTUNE_CHAIN_PORT picks another port, 0 any free one): ${error.message}`,
    );
  });
  const { anvil, chain, tempo } = local;
  const payer = LOCAL_DEV_ACCOUNTS.payer;
  logger.info(
    { rpcUrl: anvil.rpcUrl, tempoRpcUrl: tempo.rpcUrl, asset: chain.asset.address },
    "local chain ready",
  );
  return {
    payTo: LOCAL_DEV_ACCOUNTS.payee.address,
    x402: {
      rpcUrl: anvil.rpcUrl,
      chainId: chain.chainId,
      network: chain.network,
      asset: { ...chain.asset },
      facilitatorKey: LOCAL_DEV_ACCOUNTS.facilitator.privateKey,
    },
    mpp: {
      rpcUrl: tempo.rpcUrl,
      chainId: tempo.chainId,
      currency: tempo.currency,
      decimals: tempo.decimals,
      operatorKey: LOCAL_DEV_ACCOUNTS.mppOperator.privateKey,
      secretKey: LOCAL_MPP_SECRET,
    },
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
    stop: () => local.stop(),
  };
};

/** The fortune service with its local chain (`FORTUNE_RAILS=local`, the default) or hosted rails. */
export const fortuneLocalService = createFortuneService({ localChain: localChainRails });

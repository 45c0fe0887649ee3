/**
 * The local chain as a service is given it: started (or found) on the service's settings, with
 * the dev accounts' roles assigned (payee, facilitator signer, MPP operator) and the local MPP
 * secret. What `@app/fortune/local` and `@app/gateway/local` hand their services; LOCAL CHAINS ONLY.
 *
 * @module
 */
import type { ProvidedChain } from "@app/payments";
import { LOCAL_DEV_ACCOUNTS } from "./dev-accounts.ts";
import { startLocalChain } from "./start.ts";

/**
 * The HMAC key of local MPP challenges (and the root of the keys a service derives from it).
 * LOCAL CHAINS ONLY: hosted rails take their secret from configuration.
 */
export const LOCAL_MPP_SECRET = "local-chain-only-mpp-challenge-secret-0001";

/** Where and how to start the chain, and the variable that picks its port (named in a failure). */
export type ProvideLocalChainOptions = {
  /** The chain's folder (its state file and contract cache). */
  dir: string;
  port: number;
  chainId: number;
  /** E.g. `FORTUNE_CHAIN_PORT`: what the user changes when the port is taken. */
  portVariable: string;
  logger: { info(fields: object, message: string): void };
};

/**
 * Starts the local chain (the demo payer gets 100 LocalUSD and a Permit2 approval at first
 * start) and hands a service its roles on it.
 */
export async function provideLocalChain(options: ProvideLocalChainOptions): Promise<ProvidedChain> {
  const local = await startLocalChain({
    dir: options.dir,
    port: options.port,
    chainId: options.chainId,
  }).catch((error: Error) => {
    throw new Error(
      `the local chain did not start on 127.0.0.1:${options.port} ` +
        `(${options.portVariable} picks another port, 0 any free one): ${error.message}`,
    );
  });
  const { anvil, chain, tempo } = local;
  const payer = LOCAL_DEV_ACCOUNTS.payer;
  options.logger.info(
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
}

/**
 * One chain for every service of a process that asks for one (the launcher runs fortune and the
 * gateway side by side): the first request starts it on its settings, later ones get the same
 * chain wherever it listens, and it stops with the last service that stops. A later request for
 * another chain id is refused: the platform runs one local chain.
 */
export function sharedLocalChain(): (options: ProvideLocalChainOptions) => Promise<ProvidedChain> {
  let started: { options: ProvideLocalChainOptions; chain: Promise<ProvidedChain> } | undefined;
  let users = 0;
  return async (options) => {
    if (!started) started = { options, chain: provideLocalChain(options) };
    else if (options.chainId !== started.options.chainId) {
      throw new Error(
        `the local chain runs with chain id ${started.options.chainId} (the ${started.options.portVariable} ` +
          `service's setting), not ${options.chainId}: the platform runs one local chain`,
      );
    }
    const current = started;
    const chain = await current.chain.catch((error: unknown) => {
      if (started === current) started = undefined;
      throw error;
    });
    users += 1;
    let stopped = false;
    return {
      ...chain,
      stop: async () => {
        if (stopped) return;
        stopped = true;
        users -= 1;
        if (users === 0) {
          started = undefined;
          await chain.stop();
        }
      },
    };
  };
}

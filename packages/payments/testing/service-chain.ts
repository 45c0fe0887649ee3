import { join } from "node:path";
import { bootstrapLocalChain, LOCAL_DEV_ACCOUNTS, type LocalChain } from "@app/local-chain";

/** The local chain a service started for itself, as a test that pays the service reaches it. */
export type ServiceChain = {
  /** LocalUSD, x402's token: fund wallets, read balances, sign for it. */
  chain: LocalChain;
  /** The Tempo side of the chain (MPP): the reserve shim's URL and pathUSD. */
  tempo: { rpcUrl: string; chainId: number; currency: `0x${string}` };
};

/** What a service on the local chain publishes of it in its credentials (`provideLocalChain`). */
type ChainCredentials = {
  chain: { rpcUrl: string; tempoRpcUrl: string; chainId: number; mppCurrency: `0x${string}` };
};

/**
 * The chain a service started, from the credentials it published: bootstrapped once more by the
 * deployer (safe on a bootstrapped chain; it finds the contracts in place) to get its token and
 * clients, with the compiled contracts cached in the service's `dataDir`.
 */
export async function serviceChainOf(credentials: unknown, dataDir: string): Promise<ServiceChain> {
  const published = (credentials as ChainCredentials).chain;
  const chain = await bootstrapLocalChain({
    rpcUrl: published.rpcUrl,
    deployerPrivateKey: LOCAL_DEV_ACCOUNTS.deployer.privateKey,
    cacheDir: join(dataDir, "chain", "contracts"),
  });
  return {
    chain,
    tempo: { rpcUrl: published.tempoRpcUrl, chainId: published.chainId, currency: published.mppCurrency },
  };
}

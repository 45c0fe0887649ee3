/**
 * viem chain objects and clients for a Tempo chain (local anvil or hosted), as mppx expects them.
 *
 * @module
 */
import {
  type Account,
  type Address,
  type Chain,
  type Client,
  createClient,
  createPublicClient,
  erc20Abi,
  http,
} from "viem";
import { tempo, tempoDevnet, tempoLocalnet, tempoModerato } from "viem/chains";

const KNOWN_TEMPO_CHAINS: readonly Chain[] = [tempo, tempoModerato, tempoDevnet, tempoLocalnet];

/**
 * A viem chain with Tempo's transaction format for `chainId`, pointed at `rpcUrl`: viem's own
 * definition when the id is a known Tempo chain (4217 mainnet, Moderato testnet, 1337 localnet…),
 * otherwise the localnet definition with that id.
 */
export function tempoChain(rpcUrl: string, chainId: number): Chain {
  const base = KNOWN_TEMPO_CHAINS.find((c) => c.id === chainId) ?? { ...tempoLocalnet, id: chainId };
  return { ...base, rpcUrls: { default: { http: [rpcUrl] } } } as Chain;
}

/** A viem client (optionally with a signing account) for a Tempo chain: what mppx's `getClient` wants. */
export function tempoClient(rpcUrl: string, chainId: number, account?: Account): Client {
  return createClient({
    chain: tempoChain(rpcUrl, chainId),
    transport: http(rpcUrl),
    pollingInterval: 50,
    ...(account ? { account } : {}),
  });
}

/** TIP-20 balance of `owner` in atomic units. */
export async function tip20Balance(rpcUrl: string, token: Address, owner: Address): Promise<bigint> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  return client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [owner] });
}

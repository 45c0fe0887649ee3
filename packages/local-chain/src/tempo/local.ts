/**
 * Local mode of the MPP rails: the TIP-1034 reserve and its RPC shim on an anvil started with
 * `startAnvil` (`--network tempo --hardfork T4`), and pathUSD for test payers. LOCAL CHAINS ONLY.
 *
 * @module
 */

import { PATH_USD_ADDRESS, TIP20_DECIMALS, tempoChain } from "@app/payments";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  parseUnits,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { LOCAL_DEV_ACCOUNTS } from "../dev-accounts.ts";
import { installChannelReserve } from "./reserve.ts";
import { startTempoShim, type TempoShimStats } from "./rpc-shim.ts";

/** Options for {@link startLocalTempo}. */
export interface StartLocalTempoOptions {
  /** A running anvil (`startAnvil()`); this module never starts or stops it. */
  anvilRpcUrl: string;
  /** Where the compiled reserve is cached (e.g. `<app>/.data/contracts`). */
  cacheDir?: string;
  /** Loopback address of the shim (default `127.0.0.1`). */
  host?: string;
  /** Shim port (default: any free port). */
  port?: number;
  /** Receives one line per seeded transaction (debugging). */
  log?: (line: string) => void;
}

/** What the MPP rails need to run against the local chain. */
export interface LocalTempo {
  /** The shim URL: give it to `createMppRails` and `createMppClient` (never anvil's URL). */
  readonly rpcUrl: string;
  readonly anvilRpcUrl: string;
  readonly chainId: number;
  /** pathUSD (predeployed TIP-20, 6 decimals). */
  readonly currency: Address;
  readonly decimals: number;
  readonly shimStats: Readonly<TempoShimStats>;
  /** Stops the shim (not anvil). Idempotent. */
  stop(): Promise<void>;
}

/**
 * Installs the channel reserve on a running anvil (idempotent) and starts the RPC shim in front of it.
 */
export async function startLocalTempo(options: StartLocalTempoOptions): Promise<LocalTempo> {
  await installChannelReserve({ anvilRpcUrl: options.anvilRpcUrl, cacheDir: options.cacheDir });
  const chainId = await createPublicClient({ transport: http(options.anvilRpcUrl) }).getChainId();
  const shim = await startTempoShim({
    anvilRpcUrl: options.anvilRpcUrl,
    host: options.host,
    port: options.port,
    log: options.log,
  });
  return {
    rpcUrl: shim.rpcUrl,
    anvilRpcUrl: options.anvilRpcUrl,
    chainId,
    currency: PATH_USD_ADDRESS,
    decimals: TIP20_DECIMALS,
    shimStats: shim.stats,
    stop: () => shim.stop(),
  };
}

/** Options for {@link fundPathUsd}. */
export interface FundPathUsdOptions {
  rpcUrl: string;
  to: Address;
  /** Decimal pathUSD, e.g. `"1.5"`. */
  amount: string;
  /**
   * Sender. Every anvil dev account holds 2^64−1 atomic pathUSD on `--network tempo`; the default is
   * `LOCAL_DEV_ACCOUNTS.payer`, which needs no funding itself.
   */
  funderPrivateKey?: Hex;
}

const funderQueues = new Map<Address, Promise<unknown>>();

/**
 * Transfers pathUSD from a prefunded dev account to `to` and waits for the receipt. Transfers from
 * one funder are serialised within this process (no nonce races). LOCAL CHAINS ONLY.
 */
export async function fundPathUsd(options: FundPathUsdOptions): Promise<Hex> {
  const funder = privateKeyToAccount(options.funderPrivateKey ?? LOCAL_DEV_ACCOUNTS.payer.privateKey);
  const publicClient = createPublicClient({ transport: http(options.rpcUrl), pollingInterval: 50 });
  const chain = tempoChain(options.rpcUrl, await publicClient.getChainId());
  const wallet = createWalletClient({ account: funder, chain, transport: http(options.rpcUrl) });
  const send = async (): Promise<Hex> => {
    const hash = await wallet.writeContract({
      address: PATH_USD_ADDRESS,
      abi: erc20Abi,
      functionName: "transfer",
      args: [options.to, parseUnits(options.amount, TIP20_DECIMALS)],
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success")
      throw new Error(`pathUSD transfer to ${options.to} reverted (tx ${hash})`);
    return hash;
  };
  const next = (funderQueues.get(funder.address) ?? Promise.resolve()).then(send, send);
  funderQueues.set(
    funder.address,
    next.catch(() => undefined),
  );
  return next;
}

/**
 * The whole local chain in one call: anvil (`--network tempo`, state kept on disk), our token and the
 * x402 Permit2 proxies, the TIP-1034 channel reserve behind its RPC shim, and the demo payer funded.
 * What a launcher or a test harness starts; LOCAL CHAINS ONLY.
 *
 * @module
 */
import { join } from "node:path";
import { type AnvilHandle, startAnvil } from "./anvil.ts";
import { LOCAL_DEV_ACCOUNTS } from "./dev-accounts.ts";
import { bootstrapLocalChain, type LocalChain } from "./local-chain.ts";
import { type LocalTempo, startLocalTempo } from "./tempo/local.ts";

/** Options for {@link startLocalChain}. */
export interface StartLocalChainOptions {
  /** Where the chain keeps its files: `<dir>/anvil-state.json` and `<dir>/contracts` (compile cache). */
  dir: string;
  /** Loopback address anvil listens on (default `127.0.0.1`). */
  host?: string;
  /** anvil's port (default 8545; 0: any free port). */
  port?: number;
  /** Chain id (default 1337). */
  chainId?: number;
  /**
   * LocalUSD the demo payer (`LOCAL_DEV_ACCOUNTS.payer`) is given, with a Permit2 approval, when it
   * holds none (default `"100"`; `"0"`: none).
   */
  demoFundsUsd?: string;
}

/** A running local chain: the x402 side (`chain`), the MPP side (`tempo`), and the node itself. */
export interface RunningLocalChain {
  readonly anvil: AnvilHandle;
  /** LocalUSD, the Permit2 proxies and helpers to fund wallets (x402). */
  readonly chain: LocalChain;
  /** The reserve's RPC shim and pathUSD (MPP): give `tempo.rpcUrl`, never anvil's, to MPP servers and clients. */
  readonly tempo: LocalTempo;
  /** Stops the shim, then anvil (its state is written). Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts anvil and prepares everything on it (each step idempotent, so a chain restored from its
 * state file is simply checked). On a failure, what was started is stopped again.
 */
export async function startLocalChain(options: StartLocalChainOptions): Promise<RunningLocalChain> {
  const contracts = join(options.dir, "contracts");
  const anvil = await startAnvil({
    host: options.host ?? "127.0.0.1",
    port: options.port ?? 8545,
    chainId: options.chainId ?? 1337,
    stateFile: join(options.dir, "anvil-state.json"),
  });
  const stops: (() => Promise<void>)[] = [() => anvil.stop()];
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      for (const step of stops.reverse()) await step();
    })();
    return stopped;
  };
  try {
    const chain = await bootstrapLocalChain({
      rpcUrl: anvil.rpcUrl,
      deployerPrivateKey: LOCAL_DEV_ACCOUNTS.deployer.privateKey,
      cacheDir: contracts,
    });
    const tempo = await startLocalTempo({ anvilRpcUrl: anvil.rpcUrl, cacheDir: contracts });
    stops.push(() => tempo.stop());
    const payer = LOCAL_DEV_ACCOUNTS.payer;
    const funds = options.demoFundsUsd ?? "100";
    if (Number(funds) > 0 && (await chain.balanceOf(payer.address)) === 0n) {
      await chain.fund(payer.address, funds);
      await chain.approvePermit2(payer.privateKey);
    }
    return { anvil, chain, tempo, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

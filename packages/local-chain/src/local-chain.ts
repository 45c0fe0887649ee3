/**
 * Idempotent bootstrap of a local EVM chain for the x402 rails: LocalUSD at a deterministic
 * address, the x402 Permit2 proxies at their canonical addresses, helpers to fund wallets.
 *
 * @module
 */

import {
  CREATE2_DEPLOYER_ADDRESS,
  PERMIT2_ADDRESS,
  X402_EXACT_PERMIT2_PROXY_ADDRESS,
  X402_UPTO_PERMIT2_PROXY_ADDRESS,
} from "@app/payments";
import {
  type Abi,
  type Address,
  type Chain,
  concat,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeDeployData,
  getContractAddress,
  type Hex,
  http,
  keccak256,
  maxUint256,
  numberToHex,
  type PublicClient,
  parseEther,
  parseUnits,
  type Transport,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { type CompiledContracts, compileContracts } from "./contracts.ts";

/** CREATE2 salt of LocalUSD (the string predates this package: changing it would move the token). */
export const LOCAL_USD_SALT: Hex = keccak256(toHex("@app/payments:LocalUSD:v1"));

/** The test dollar's identity; its EIP-712 domain is (name, version, chainId, address). */
export interface LocalAsset {
  readonly address: Address;
  readonly name: string;
  readonly symbol: string;
  readonly version: string;
  readonly decimals: 6;
}

/** Options for {@link bootstrapLocalChain}. */
export interface BootstrapLocalChainOptions {
  rpcUrl: string;
  /** Owner of LocalUSD (mints in `fund`). Use `LOCAL_DEV_ACCOUNTS.deployer.privateKey` locally. */
  deployerPrivateKey: Hex;
  /** Where compiled contract artifacts are cached (e.g. `<app>/.data/contracts`). */
  cacheDir: string;
  /** LocalUSD's EIP-712 name / symbol / version (default "USD Coin" / "LUSD" / "1"). */
  token?: { name?: string; symbol?: string; version?: string };
  /** Receipt polling interval in ms (default 50: anvil mines instantly). */
  pollingIntervalMs?: number;
}

/** A bootstrapped local chain. */
export interface LocalChain {
  readonly rpcUrl: string;
  readonly chainId: number;
  /** CAIP-2 id, e.g. `eip155:1337`. */
  readonly network: `eip155:${number}`;
  readonly asset: LocalAsset;
  readonly permit2Address: Address;
  readonly exactPermit2ProxyAddress: Address;
  readonly uptoPermit2ProxyAddress: Address;
  /** viem chain object for this node (plain EVM chain, no Tempo extensions). */
  readonly chain: Chain;
  readonly publicClient: PublicClient<Transport, Chain>;
  /** ABI of LocalUSD. */
  readonly assetAbi: Abi;
  /** True when this call deployed LocalUSD; false when it was already on chain. */
  readonly deployedNow: boolean;
  /** Mints `usdAmount` (decimal dollars, e.g. "12.5") of LocalUSD to `address` and tops up its gas ETH. */
  fund(address: Address, usdAmount: string): Promise<void>;
  /** LocalUSD balance in atomic units (6 decimals). */
  balanceOf(address: Address): Promise<bigint>;
  /** Sends `approve(Permit2, max)` from that wallet (needed once by `upto` / Permit2 `exact` payers). */
  approvePermit2(privateKey: Hex): Promise<Hex>;
}

/** Gas money every funded / approving wallet gets (anvil_setBalance; local only). */
const GAS_ETH = parseEther("1000");

/**
 * Returns a viem chain definition for an arbitrary local node.
 */
export function localChainDefinition(rpcUrl: string, chainId: number): Chain {
  return defineChain({
    id: chainId,
    name: `local-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    testnet: true,
  });
}

/**
 * Prepares a local chain (anvil, `--network tempo`) for x402:
 *
 * 1. compiles the contracts (disk cache under `cacheDir`);
 * 2. writes the LocalExact/LocalUpto Permit2 proxies' runtime code to the canonical x402 proxy
 *    addresses with `anvil_setCode` (only if the code there differs);
 * 3. deploys LocalUSD through the CREATE2 deployer with a fixed salt and the deployer as owner, so
 *    its address depends only on (code, name, symbol, version, owner) — never on nonces. If code is
 *    already there (a chain restored from a state file, a second bootstrap, a concurrent one), it
 *    is reused.
 *
 * Safe to run any number of times on the same chain.
 */
export async function bootstrapLocalChain(options: BootstrapLocalChainOptions): Promise<LocalChain> {
  const pollingInterval = options.pollingIntervalMs ?? 50;
  const probe = createPublicClient({ transport: http(options.rpcUrl) });
  const chainId = await probe.getChainId();
  const chain = localChainDefinition(options.rpcUrl, chainId);
  const publicClient = createPublicClient({ chain, transport: http(options.rpcUrl), pollingInterval });
  const deployer = privateKeyToAccount(options.deployerPrivateKey);
  const deployerWallet = createWalletClient({
    account: deployer,
    chain,
    transport: http(options.rpcUrl),
    pollingInterval,
  });

  const rpc = (method: string, params: unknown[]): Promise<unknown> =>
    publicClient.request({ method, params } as never);

  const permit2Code = await publicClient.getCode({ address: PERMIT2_ADDRESS });
  if (!permit2Code || permit2Code === "0x") {
    throw new Error(
      `Permit2 is not deployed at ${PERMIT2_ADDRESS} on ${options.rpcUrl}; start anvil with --network tempo`,
    );
  }
  const factoryCode = await publicClient.getCode({ address: CREATE2_DEPLOYER_ADDRESS });
  if (!factoryCode || factoryCode === "0x") {
    throw new Error(`the CREATE2 deployer ${CREATE2_DEPLOYER_ADDRESS} is missing on ${options.rpcUrl}`);
  }

  const compiled: CompiledContracts = await compileContracts({ cacheDir: options.cacheDir });
  const { LocalUSD, LocalExactPermit2Proxy, LocalUptoPermit2Proxy } = compiled.contracts;

  for (const [address, artifact] of [
    [X402_EXACT_PERMIT2_PROXY_ADDRESS, LocalExactPermit2Proxy],
    [X402_UPTO_PERMIT2_PROXY_ADDRESS, LocalUptoPermit2Proxy],
  ] as const) {
    const current = await publicClient.getCode({ address });
    if (current?.toLowerCase() !== artifact.deployedBytecode.toLowerCase()) {
      await rpc("anvil_setCode", [address, artifact.deployedBytecode]);
    }
  }

  const name = options.token?.name ?? "USD Coin";
  const symbol = options.token?.symbol ?? "LUSD";
  const version = options.token?.version ?? "1";
  const initCode = encodeDeployData({
    abi: LocalUSD.abi,
    bytecode: LocalUSD.bytecode,
    args: [name, symbol, version, deployer.address],
  });
  const assetAddress = getContractAddress({
    opcode: "CREATE2",
    from: CREATE2_DEPLOYER_ADDRESS,
    salt: LOCAL_USD_SALT,
    bytecode: initCode,
  });

  const ensureGas = async (address: Address): Promise<void> => {
    const balance = await publicClient.getBalance({ address });
    if (balance < GAS_ETH) await rpc("anvil_setBalance", [address, numberToHex(GAS_ETH)]);
  };

  // Serialise the deployer's transactions (fund() may be called concurrently).
  let queue: Promise<unknown> = Promise.resolve();
  const asDeployer = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };

  let deployedNow = false;
  const existing = await publicClient.getCode({ address: assetAddress });
  if (!existing || existing === "0x") {
    await ensureGas(deployer.address);
    try {
      await asDeployer(async () => {
        const hash = await deployerWallet.sendTransaction({
          to: CREATE2_DEPLOYER_ADDRESS,
          data: concat([LOCAL_USD_SALT, initCode]),
        });
        const receipt = await publicClient.waitForTransactionReceipt({ hash });
        if (receipt.status !== "success") throw new Error(`LocalUSD deployment reverted (tx ${hash})`);
      });
      deployedNow = true;
    } catch (err) {
      // A concurrent bootstrap may have won the race: fine if the code is there now.
      const after = await publicClient.getCode({ address: assetAddress });
      if (!after || after === "0x") throw err;
    }
  }

  const assetAbi = LocalUSD.abi;
  const balanceOf = async (address: Address): Promise<bigint> =>
    (await publicClient.readContract({
      address: assetAddress,
      abi: assetAbi,
      functionName: "balanceOf",
      args: [address],
    })) as bigint;

  const fund = async (address: Address, usdAmount: string): Promise<void> => {
    const amount = parseUnits(usdAmount, 6);
    await ensureGas(address);
    if (amount === 0n) return;
    await ensureGas(deployer.address);
    await asDeployer(async () => {
      const hash = await deployerWallet.writeContract({
        address: assetAddress,
        abi: assetAbi,
        functionName: "mint",
        args: [address, amount],
      });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== "success") throw new Error(`LocalUSD mint reverted (tx ${hash})`);
    });
  };

  const approvePermit2 = async (privateKey: Hex): Promise<Hex> => {
    const account = privateKeyToAccount(privateKey);
    await ensureGas(account.address);
    const wallet = createWalletClient({ account, chain, transport: http(options.rpcUrl), pollingInterval });
    const hash = await wallet.writeContract({
      address: assetAddress,
      abi: assetAbi,
      functionName: "approve",
      args: [PERMIT2_ADDRESS, maxUint256],
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`approve(Permit2) reverted (tx ${hash})`);
    return hash;
  };

  return {
    rpcUrl: options.rpcUrl,
    chainId,
    network: `eip155:${chainId}`,
    asset: { address: assetAddress, name, symbol, version, decimals: 6 },
    permit2Address: PERMIT2_ADDRESS,
    exactPermit2ProxyAddress: X402_EXACT_PERMIT2_PROXY_ADDRESS,
    uptoPermit2ProxyAddress: X402_UPTO_PERMIT2_PROXY_ADDRESS,
    chain,
    publicClient,
    assetAbi,
    deployedNow,
    fund,
    balanceOf,
    approvePermit2,
  };
}

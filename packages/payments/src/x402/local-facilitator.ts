/**
 * x402 facilitators for the resource server: in-process (our own signer, any EVM RPC) or hosted
 * (HTTP). Both satisfy `@x402/core`'s `FacilitatorClient`, so configuration picks one.
 *
 * @module
 */
import { InMemoryPendingSettlementStore, x402Facilitator } from "@x402/core/facilitator";
import { type FacilitatorClient, type FacilitatorConfig, HTTPFacilitatorClient } from "@x402/core/server";
import type { Network, PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { UptoEvmScheme } from "@x402/evm/upto/facilitator";
import {
  type Abi,
  type Address,
  concat,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  formatTransactionReceipt,
  type Hex,
  http,
  publicActions,
  type TypedDataDefinition,
  toHex,
} from "viem";
import { isTypedDataSignedBy, nativeSigningAccount } from "../crypto/signatures.ts";
import { NativeExactEvmScheme, type TransferReceipt } from "./exact-eip3009.ts";
import { jsonRpc } from "./json-rpc.ts";
import { createSettlementSender, type SettlementSender } from "./settlement-sender.ts";

/** Options for {@link createLocalFacilitator}. */
export interface LocalFacilitatorOptions {
  /** JSON-RPC endpoint of the chain to settle on (the local anvil, or any EVM chain). */
  rpcUrl: string;
  chainId: number;
  /** Key that submits settlement transactions and pays their gas; its address is the `upto` facilitator. */
  signerPrivateKey: Hex;
  /** Receipt polling interval in ms (default 100). */
  pollingIntervalMs?: number;
  /** Upper bound on waiting for a settlement receipt (default 60000 ms). */
  confirmationTimeoutMs?: number;
}

/** An in-process facilitator; a `FacilitatorClient` plus what it runs on. */
export interface LocalFacilitatorClient extends FacilitatorClient {
  /** CAIP-2 network it serves, e.g. `eip155:1337`. */
  readonly network: Network;
  /** Address of the settlement signer (also the `upto` `facilitatorAddress`). */
  readonly signerAddress: Address;
  /** The underlying `@x402/core` facilitator (for hooks). */
  readonly facilitator: x402Facilitator;
}

/**
 * Builds an in-process x402 facilitator: `x402Facilitator` with `@x402/evm`'s `exact` (EIP-3009
 * and Permit2) and `upto` (Permit2) facilitator schemes over a viem wallet+public client, the
 * plain EIP-3009 `exact` payments (an EOA's ECDSA signature) taken by {@link NativeExactEvmScheme}:
 * the same rules and reason codes with native signature recovery, one `eth_call` to verify, one
 * `eth_sendRawTransactionSync` to settle, and no second verification of a payment it has just
 * verified. Nothing here is specific to the local chain: point it at any EVM RPC with a funded key.
 */
export function createLocalFacilitator(options: LocalFacilitatorOptions): LocalFacilitatorClient {
  const network: Network = `eip155:${options.chainId}`;
  const account = nativeSigningAccount(options.signerPrivateKey);
  const confirmationTimeoutMs = options.confirmationTimeoutMs ?? 60_000;
  const pollingIntervalMs = options.pollingIntervalMs ?? 100;
  // A send waiting on stalled mining gives up with the receipt wait, not before.
  const sendTimeoutMs = Math.min(10_000, confirmationTimeoutMs);
  const chain = defineChain({
    id: options.chainId,
    name: network,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  });
  const client = createWalletClient({
    account,
    chain,
    transport: http(options.rpcUrl, { timeout: sendTimeoutMs }),
    pollingInterval: pollingIntervalMs,
  }).extend(publicActions);
  const rpc = jsonRpc(options.rpcUrl, { timeoutMs: sendTimeoutMs });
  // A plain EOA signature is checked natively; anything else (ERC-1271, ERC-6492) goes to viem's full check.
  const verifyTypedData = async (args: Parameters<typeof client.verifyTypedData>[0]) =>
    isTypedDataSignedBy(args.address, args as TypedDataDefinition, args.signature as Hex) ||
    client.verifyTypedData(args);
  const reads = recentReads(client);
  // One signer settles many payments at once, for every scheme: one sender counts its nonces.
  const sender = createSettlementSender({
    rpc,
    account,
    chainId: options.chainId,
    sendTimeoutMs,
    confirmationTimeoutMs,
    pollingIntervalMs,
    onSend: reads.forget,
  });
  const writes = viemWrites(client, sender);
  const signer = toFacilitatorEvmSigner(
    // viem's generic client types are wider than the structural signer type x402 declares.
    {
      ...client,
      ...writes,
      readContract: reads.readContract,
      getCode: reads.getCode,
      verifyTypedData,
      address: account.address,
    } as unknown as Parameters<typeof toFacilitatorEvmSigner>[0],
    { confirmationTimeoutMs },
  );
  const pendingSettlementStore = new InMemoryPendingSettlementStore();
  const exact = new NativeExactEvmScheme(
    new ExactEvmScheme(signer, { pendingSettlementStore }),
    {
      getCode: (address) => rpc<Hex>("eth_getCode", [address, "latest"]),
      call: (to, data, gas) =>
        rpc<Hex>("eth_call", [
          { from: account.address, to, data, ...(gas === undefined ? {} : { gas: toHex(gas) }) },
          "latest",
        ]),
    },
    sender,
    pendingSettlementStore,
  );
  const facilitator = new x402Facilitator()
    .register(network, exact)
    .register(network, new UptoEvmScheme(signer));

  return {
    network,
    signerAddress: account.address,
    facilitator,
    verify: (payload: PaymentPayload, requirements: PaymentRequirements) =>
      facilitator.verify(payload, requirements),
    settle: (payload: PaymentPayload, requirements: PaymentRequirements) =>
      facilitator.settle(payload, requirements),
    getSupported: async () =>
      facilitator.getSupported() as Awaited<ReturnType<FacilitatorClient["getSupported"]>>,
  };
}

type WalletClient = ReturnType<typeof createWalletClient> & ReturnType<typeof publicActions>;

/** How long a chain read is reused: settlement re-reads what verification read a moment before. */
const READ_REUSE_MS = 1_000;

/**
 * `readContract` and `getCode` answered from a read made less than a second before. The facilitator
 * verifies a payment, and its settlement verifies it again (balance, nonce state, the token's code):
 * the same reads, a few milliseconds apart, each a JSON-RPC round trip and ABI work. Reusing them
 * cannot take money wrongly: the chain still enforces every rule when the settlement runs, so a
 * state that changed in that second makes the transaction revert (a failed settlement, nothing
 * served). Every transaction this facilitator sends forgets them all (`forget`), so no read made
 * before a settlement is reused after it (a spent nonce is never reported unspent).
 */
function recentReads(client: WalletClient) {
  const cache = new Map<string, { at: number; value: Promise<unknown> }>();
  const key = (name: string, args: unknown) =>
    name + JSON.stringify(args, (_k, value) => (typeof value === "bigint" ? `${value}n` : value));
  const reuse =
    <A, R>(name: string, read: (args: A) => Promise<R>) =>
    (args: A): Promise<R> => {
      const now = Date.now();
      const id = key(name, args);
      const hit = cache.get(id);
      if (hit && now - hit.at < READ_REUSE_MS) return hit.value as Promise<R>;
      if (cache.size > 1_000) cache.clear();
      const value = read(args);
      cache.set(id, { at: now, value });
      value.catch(() => cache.delete(id));
      return value;
    };
  return {
    forget: () => cache.clear(),
    readContract: reuse("readContract", (args: Parameters<typeof client.readContract>[0]) =>
      client.readContract(args),
    ),
    getCode: reuse("getCode", (args: Parameters<typeof client.getCode>[0]) => client.getCode(args)),
  };
}

/**
 * `writeContract`, `sendTransaction` and `waitForTransactionReceipt` as `@x402/evm`'s schemes
 * (Permit2, upto, smart wallets) call them, over the facilitator's {@link SettlementSender}, so
 * every transaction of its key takes its nonce from one count. A send the node answered with a
 * receipt is not polled for; one it did not answer in time (mining stalled, a lost connection)
 * may be out: its hash is returned and its receipt waited for as usual, so a late one makes the
 * settlement `settlement_pending`, never failed. A node that refuses the transaction makes the
 * call throw, as viem's would.
 */
function viemWrites(client: WalletClient, sender: SettlementSender) {
  const receipts = new Map<Hex, TransferReceipt>();
  const transact = async (to: Address, data: Hex): Promise<Hex> => {
    const sent = await sender.send(to, data, async () => {
      const gas = await sender.estimateGas(to, data);
      return gas + gas / 4n;
    });
    if (sent.kind === "refused") throw sent.error;
    if (sent.receipt) receipts.set(sent.hash, sent.receipt);
    return sent.hash;
  };
  return {
    writeContract(args: {
      address: Address;
      abi: Abi;
      functionName: string;
      args?: readonly unknown[];
      dataSuffix?: Hex;
    }) {
      const call = encodeFunctionData({ abi: args.abi, functionName: args.functionName, args: args.args });
      return transact(args.address, args.dataSuffix ? concat([call, args.dataSuffix]) : call);
    },
    sendTransaction(args: { to: Address; data?: Hex }) {
      return transact(args.to, args.data ?? "0x");
    },
    async waitForTransactionReceipt(args: { hash: Hex; timeout?: number }) {
      const receipt = receipts.get(args.hash);
      if (!receipt) return client.waitForTransactionReceipt(args);
      receipts.delete(args.hash);
      return formatTransactionReceipt(receipt as never);
    },
  };
}

/** Per-path auth headers as `HTTPFacilitatorClient` wants them. */
export type FacilitatorAuthHeaders = NonNullable<FacilitatorConfig["createAuthHeaders"]>;

/** Options for {@link createHostedFacilitator}. */
export interface HostedFacilitatorOptions {
  /** Base URL, e.g. `https://x402.org/facilitator` (endpoints `/verify`, `/settle`, `/supported`). */
  url: string;
  /**
   * Auth: either fixed headers sent on every call, or a function returning per-path headers
   * (`{ verify, settle, supported }`), e.g. to mint a fresh JWT per request.
   */
  authHeaders?: Record<string, string> | FacilitatorAuthHeaders;
  /** Per-request timeout in ms (library default 90000). */
  timeoutMs?: number;
}

/** Wraps `HTTPFacilitatorClient` for a hosted facilitator. */
export function createHostedFacilitator(options: HostedFacilitatorOptions): FacilitatorClient {
  const { authHeaders } = options;
  let createAuthHeaders: FacilitatorAuthHeaders | undefined;
  if (typeof authHeaders === "function") {
    createAuthHeaders = authHeaders;
  } else if (authHeaders) {
    const headers = { ...authHeaders };
    createAuthHeaders = async () => ({
      verify: headers,
      settle: headers,
      supported: headers,
      bazaar: headers,
    });
  }
  return new HTTPFacilitatorClient({
    url: options.url,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(createAuthHeaders ? { createAuthHeaders } : {}),
  });
}

/** Facilitator selection, e.g. from service config. */
export type FacilitatorSelection =
  | ({ mode: "local" } & LocalFacilitatorOptions)
  | ({ mode: "hosted" } & HostedFacilitatorOptions);

/** Builds the facilitator a config asks for. */
export function createFacilitator(selection: FacilitatorSelection): FacilitatorClient {
  if (selection.mode === "local") {
    const { mode: _mode, ...rest } = selection;
    return createLocalFacilitator(rest);
  }
  const { mode: _mode, ...rest } = selection;
  return createHostedFacilitator(rest);
}

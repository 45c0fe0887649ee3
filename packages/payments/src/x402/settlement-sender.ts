/**
 * The facilitator's transactions: gas estimates, fees, nonces, signing and sending, in as few
 * JSON-RPC round trips as it takes. A settlement is one `eth_sendRawTransactionSync` (EIP-7966:
 * the node answers with the receipt); the nonce is counted here, and fees are reused for a second.
 *
 * @module
 */
import type { Address, Hex, LocalAccount } from "viem";
import { keccak256 } from "viem";
import type { TransferReceipt } from "./exact-eip3009.ts";
import { type JsonRpc, JsonRpcError } from "./json-rpc.ts";

/** What sending a transaction came to. */
export type SendResult =
  /** The node has it: its receipt when it answered with one, none when it did not in time (mining stalled, a lost connection). */
  | { kind: "sent"; hash: Hex; receipt?: TransferReceipt }
  /** The node refused it (a revert in its checks, an underpriced or malformed transaction): nothing is out. */
  | { kind: "refused"; error: Error };

export interface SettlementSender {
  readonly address: Address;
  /** `eth_estimateGas` of a call from the facilitator: throws when it would revert (a simulation). */
  estimateGas(to: Address, data: Hex): Promise<bigint>;
  /**
   * Signs and sends a transaction whose gas limit `gasFor` gives. `gasFor` runs in the send's own
   * turn, after every earlier send of this key has its receipt: a simulation there sees the chain
   * as the transaction will (a payer's balance another settlement just spent, say). When it
   * throws, nothing is sent and the send is refused with its error.
   */
  send(to: Address, data: Hex, gasFor: () => Promise<bigint>): Promise<SendResult>;
  /** The receipt of a sent transaction, waited for until the confirmation timeout; undefined if none by then. */
  receipt(hash: Hex): Promise<TransferReceipt | undefined>;
}

/** A node's refusal of a transaction whose nonce was already used (geth, anvil, reth wordings). */
const NONCE_TAKEN = /nonce too low|nonce.*(already|used)|replacement transaction underpriced/i;
/** The node already has this very transaction: it is out. */
const ALREADY_KNOWN = /already known|already imported/i;

/** How many times a send whose nonce another sender took is signed again over a fresh one. */
const NONCE_RETRIES = 8;

/** How long a fee quote is reused. */
const FEE_REUSE_MS = 1_000;

type Fees =
  | { type: "eip1559"; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  | { type: "legacy"; gasPrice: bigint };

export type SenderOptions = {
  rpc: JsonRpc;
  account: LocalAccount;
  chainId: number;
  /** Bound on one synchronous send (the node's wait for the receipt). */
  sendTimeoutMs: number;
  /** Bound on waiting for a receipt after a send that did not answer with one. */
  confirmationTimeoutMs: number;
  pollingIntervalMs: number;
  /** Told before and after each send (the facilitator forgets the chain reads it reuses). */
  onSend?: () => void;
};

/**
 * A {@link SettlementSender} for one key. Sends go one at a time, each nonce after the last: a
 * synchronous send of a transaction whose nonce is ahead of the chain's is refused rather than
 * queued. The nonce is the chain's pending count, read once and counted on from there; it is read
 * again after any send whose outcome is not known (refused, no answer).
 */
export function createSettlementSender(options: SenderOptions): SettlementSender {
  const { rpc, account, chainId } = options;
  let nonce: number | undefined;
  let fees: { at: number; value: Promise<Fees> } | undefined;
  let previous: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    const next = previous.then(work, work);
    previous = next.catch(() => undefined);
    return next;
  };

  const feeQuote = (): Promise<Fees> => {
    const now = Date.now();
    if (fees && now - fees.at < FEE_REUSE_MS) return fees.value;
    const value = (async (): Promise<Fees> => {
      const [block, priority] = await Promise.all([
        rpc<{ baseFeePerGas?: Hex }>("eth_getBlockByNumber", ["latest", false]),
        rpc<Hex>("eth_maxPriorityFeePerGas", []).catch(() => undefined),
      ]);
      if (block?.baseFeePerGas !== undefined && priority !== undefined) {
        const tip = BigInt(priority);
        // Twice the base fee: room for it to rise while the quote is reused.
        return {
          type: "eip1559",
          maxFeePerGas: 2n * BigInt(block.baseFeePerGas) + tip,
          maxPriorityFeePerGas: tip,
        };
      }
      const gasPrice = BigInt(await rpc<Hex>("eth_gasPrice", []));
      return { type: "legacy", gasPrice: (gasPrice * 12n) / 10n };
    })();
    fees = { at: now, value };
    value.catch(() => {
      if (fees?.value === value) fees = undefined;
    });
    return value;
  };

  return {
    address: account.address,
    async estimateGas(to, data) {
      return BigInt(await rpc<Hex>("eth_estimateGas", [{ from: account.address, to, data }]));
    },
    async send(to, data, gasFor) {
      const quote = await feeQuote();
      const attempt = async (gas: bigint): Promise<SendResult> => {
        let serialized: Hex;
        try {
          nonce ??= Number(BigInt(await rpc<Hex>("eth_getTransactionCount", [account.address, "pending"])));
          serialized = await account.signTransaction!({
            ...quote,
            chainId,
            nonce,
            to,
            data,
            gas,
          } as never);
        } catch (error) {
          nonce = undefined;
          return { kind: "refused", error: error instanceof Error ? error : new Error(String(error)) };
        }
        const hash = keccak256(serialized);
        options.onSend?.();
        try {
          // No `timeout` parameter: anvil refuses it; this call's own timeout bounds the wait.
          const receipt = await rpc<TransferReceipt>(
            "eth_sendRawTransactionSync",
            [serialized],
            options.sendTimeoutMs,
          );
          nonce = (nonce as number) + 1;
          return { kind: "sent", hash, receipt };
        } catch (error) {
          nonce = undefined;
          if (isRefusal(error) && !ALREADY_KNOWN.test((error as Error).message)) {
            return { kind: "refused", error: error as Error };
          }
          return { kind: "sent", hash };
        } finally {
          options.onSend?.();
        }
      };
      return oneAtATime(async () => {
        let gas: bigint;
        try {
          gas = await gasFor();
        } catch (error) {
          return { kind: "refused", error: error instanceof Error ? error : new Error(String(error)) };
        }
        let result = await attempt(gas);
        // Another sender with this key took the nonce (the count here was behind the chain's): the
        // refused transaction is not out, so it is signed again over the nonce read afresh.
        for (let retry = 0; retry < NONCE_RETRIES; retry += 1) {
          if (result.kind !== "refused" || !NONCE_TAKEN.test(result.error.message)) break;
          // The other sender is mid-send: a moment's pause lets its nonce reach the pending count.
          await new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 20)));
          result = await attempt(gas);
        }
        return result;
      });
    },
    async receipt(hash) {
      const deadline = Date.now() + options.confirmationTimeoutMs;
      for (;;) {
        const receipt = await rpc<TransferReceipt | null>("eth_getTransactionReceipt", [hash]).catch(
          () => null,
        );
        if (receipt) return receipt;
        if (Date.now() + options.pollingIntervalMs > deadline) return undefined;
        await new Promise((resolve) => setTimeout(resolve, options.pollingIntervalMs));
      }
    },
  };
}

/**
 * A node's own wait for the receipt ran out (EIP-7966's code 4, or anvil's `-32603 Transaction
 * confirmation timeout`): the transaction is in its pool and may still mine.
 */
const NODE_TIMEOUT = /timeout|timed out/i;

/** A JSON-RPC error that says the node refused the transaction (not a timeout of its own, nor a lost connection). */
export function isRefusal(error: unknown): boolean {
  return (
    error instanceof JsonRpcError && error.code !== 4 && error.code < 0 && !NODE_TIMEOUT.test(error.message)
  );
}

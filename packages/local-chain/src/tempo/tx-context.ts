/**
 * Transaction context the native TIP-1034 reserve receives from the Tempo node and EVM code cannot
 * see: the open-context hash `keccak256(encodeForSigning(tx) ‖ sender)` and the TIP-20 implicit
 * approval of the reserve. Pure helpers: storage slots, call decoding, raw transaction parsing.
 *
 * @module
 */

import { CHANNEL_RESERVE_ABI } from "@app/payments";
import { Hash, Hex } from "ox";
import { TxEnvelopeTempo } from "ox/tempo";
import {
  type Address,
  decodeFunctionData,
  encodeAbiParameters,
  isAddressEqual,
  keccak256,
  parseTransaction,
  recoverTransactionAddress,
  serializeTransaction,
  type TransactionSerialized,
} from "viem";
import { Transaction as TempoTransaction } from "viem/tempo";

type Hex32 = `0x${string}`;

/** Storage slot of `mapping(address => bytes32) _openContext` in `contracts/TIP20ChannelReserve.sol`. */
const OPEN_CONTEXT_SLOT = 2n;

/**
 * Storage slot of the `allowance[owner][spender]` mapping of anvil 1.7.1's TIP-20 precompile.
 * Checked when the reserve is installed ({@link installChannelReserve}).
 */
export const TIP20_ALLOWANCE_SLOT = 10n;

/** One call (to, data) inside a transaction. */
export interface CallLike {
  to?: string | null | undefined;
  data?: string | null | undefined;
  input?: string | null | undefined;
}

/** A reserve call that pulls tokens from the sender. */
export interface ReservePull {
  action: "open" | "topUp";
  token: Address;
  amount: bigint;
}

/** A signed transaction, decoded. */
export interface ParsedTransaction {
  sender: Address;
  /** `keccak256(encodeForSigning(tx) ‖ sender)`: the node-seeded open context (`expiringNonceHash`). */
  contextHash: Hex32;
  calls: CallLike[];
}

/** Storage slot of `_openContext[sender]` in the reserve. */
export function openContextSlot(sender: Address): Hex32 {
  return keccak256(
    encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [sender, OPEN_CONTEXT_SLOT]),
  );
}

/** Storage slot of `allowance[owner][spender]` in a TIP-20 precompile token. */
export function tip20AllowanceSlot(owner: Address, spender: Address): Hex32 {
  const inner = keccak256(
    encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [owner, TIP20_ALLOWANCE_SLOT]),
  );
  return keccak256(encodeAbiParameters([{ type: "address" }, { type: "bytes32" }], [spender, inner]));
}

/** The reserve `open` / `topUp` calls among `calls` (everything else is ignored). */
export function reservePulls(calls: readonly CallLike[], reserve: Address): ReservePull[] {
  const pulls: ReservePull[] = [];
  for (const call of calls) {
    const data = call.data ?? call.input;
    if (!call.to || !data || !isAddressEqual(call.to as Address, reserve)) continue;
    let decoded: ReturnType<typeof decodeFunctionData<typeof CHANNEL_RESERVE_ABI>>;
    try {
      decoded = decodeFunctionData({ abi: CHANNEL_RESERVE_ABI, data: data as Hex32 });
    } catch {
      continue; // not a reserve function
    }
    if (decoded.functionName === "open") {
      const [, , token, deposit] = decoded.args;
      pulls.push({ action: "open", token, amount: deposit });
    } else if (decoded.functionName === "topUp") {
      const [descriptor, additional] = decoded.args;
      pulls.push({ action: "topUp", token: descriptor.token, amount: additional });
    }
  }
  return pulls;
}

/**
 * Decodes a signed raw transaction and computes its open-context hash exactly like the Tempo node
 * and mppx's `Channel.computeExpiringNonceHash`: `keccak256(encodeForSigning(tx) ‖ sender)`.
 */
export async function parseRawTransaction(raw: Hex32): Promise<ParsedTransaction> {
  const type = raw.slice(0, 4).toLowerCase();
  if (type === "0x76" || type === "0x78") {
    const tx = TempoTransaction.deserialize(raw as TempoTransaction.TransactionSerializedTempo) as {
      from?: Address;
      calls?: readonly CallLike[];
    };
    if (!tx.from) throw new Error("cannot recover the sender of a Tempo transaction");
    const signing = TxEnvelopeTempo.encodeForSigning(tx as unknown as TxEnvelopeTempo.TxEnvelopeTempo);
    return {
      sender: tx.from,
      contextHash: Hash.keccak256(Hex.concat(signing, tx.from)),
      calls: [...(tx.calls ?? [])],
    };
  }
  const serialized = raw as TransactionSerialized;
  const { r: _r, s: _s, v: _v, yParity: _y, ...unsigned } = parseTransaction(serialized);
  const sender = await recoverTransactionAddress({ serializedTransaction: serialized });
  const signing = serializeTransaction(unsigned);
  return {
    sender,
    contextHash: keccak256(Hex.concat(signing, sender)),
    calls: [{ to: unsigned.to, data: unsigned.data }],
  };
}

/** Context hash used in simulations (`eth_call`, `eth_estimateGas`), where no signed transaction exists. */
export function simulationContextHash(sender: Address): Hex32 {
  return keccak256(Hex.concat(Hex.fromString("mppx-local-simulation"), sender));
}

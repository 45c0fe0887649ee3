/**
 * What the chain says about an x402 settlement the service could not see through: its
 * transaction's receipt, or, when no transaction is known (a facilitator that did not answer, a
 * crash mid-settlement) or the known one did not pay, the transaction that spent the
 * authorisation's nonce.
 *
 * A spent nonce alone is no payment: the payer can cancel an EIP-3009 authorisation
 * (`cancelAuthorization`) or invalidate a Permit2 nonce, and the nonce is then spent with nothing
 * paid. Only a transaction that moved the tokens counts: successful, carrying the token's
 * `Transfer` from the payer to the payee the payer signed for, of the amount signed, in the
 * transaction that used this authorisation (for EIP-3009 the token's `AuthorizationUsed` for its
 * nonce; for Permit2 a call to an x402 Permit2 proxy spending its nonce). Anything else is never
 * `settled`: `pending` while the authorisation could still be used (or its use still come into
 * view), `failed` once the chain's time is past its deadline.
 *
 * @module
 */
import { x402ExactPermit2ProxyABI, x402UptoPermit2ProxyABI } from "@x402/evm";
import {
  type Block,
  createPublicClient,
  decodeFunctionData,
  type Hex,
  http,
  isAddressEqual,
  type Log,
  type PublicClient,
  parseAbi,
  parseEventLogs,
} from "viem";
import {
  PERMIT2_ADDRESS,
  X402_EXACT_PERMIT2_PROXY_ADDRESS,
  X402_UPTO_PERMIT2_PROXY_ADDRESS,
} from "../chain/addresses.ts";

/** The public facts of an authorisation (never its signature). */
export type AuthorizationFacts = {
  kind: "eip3009" | "permit2";
  from: string;
  /** The payee the payer signed for (EIP-3009's `to`, the Permit2 witness's `to`). */
  to: string;
  /**
   * The most it can move, in atomic units: EIP-3009's `value` (moved exactly), Permit2's permitted
   * amount (an `upto` settlement may move less).
   */
  value: string;
  nonce: string;
  /** The token (the EIP-3009 contract; for Permit2 the permitted token). */
  token: string;
  /** Unix seconds from which it can be used (the chain refuses it earlier). */
  validAfter: string;
  /** Unix seconds after which it can no longer be used. */
  validBefore: string;
};

export type SettlementOutcome = "settled" | "failed" | "pending";

/** Reads settlements' outcomes from the chain. */
export interface SettlementChain {
  outcome(settlement: {
    transaction?: string;
    authorization: AuthorizationFacts;
  }): Promise<SettlementOutcome>;
}

/** Blocks mined this long after an authorisation's deadline cannot have used it (a margin for block times). */
const EXPIRY_MARGIN_SECONDS = 60n;
/** Blocks asked for logs at once: within what common RPC providers allow for `eth_getLogs`. */
const LOG_RANGE_BLOCKS = 2_000n;
/**
 * How far below the last block that could have used an authorisation the search for its
 * transaction goes, at most: an authorisation signed valid for longer (only a hand-made one is)
 * is judged on this much of its window.
 */
const MAX_SEARCH_BLOCKS = 100_000n;

const EIP3009_ABI = parseAbi([
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
]);
const TOKEN_EVENTS = parseAbi([
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
]);
const PERMIT2_ABI = parseAbi(["function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)"]);
const PERMIT2_PROXIES = [
  { address: X402_EXACT_PERMIT2_PROXY_ADDRESS, abi: x402ExactPermit2ProxyABI },
  { address: X402_UPTO_PERMIT2_PROXY_ADDRESS, abi: x402UptoPermit2ProxyABI },
] as const;

/** The Permit2 permit a proxy's `settle`/`settleWithPermit` carries (its other arguments vary by proxy). */
type DecodedPermit = { permitted: { token: string }; nonce: bigint };

const isPermit = (arg: unknown): arg is DecodedPermit =>
  typeof arg === "object" && arg !== null && "nonce" in arg && "permitted" in arg;

/** {@link SettlementChain} over any EVM JSON-RPC endpoint. */
export class EvmSettlementChain implements SettlementChain {
  private readonly client: PublicClient;

  constructor(rpcUrl: string) {
    this.client = createPublicClient({ transport: http(rpcUrl, { retryCount: 1 }) });
  }

  async outcome(settlement: {
    transaction?: string;
    authorization: AuthorizationFacts;
  }): Promise<SettlementOutcome> {
    const { authorization } = settlement;
    const known = settlement.transaction as Hex | undefined;
    if (known && (await this.paidIn(known, authorization))) return "settled";
    // The nonce and the chain's own time, read at one block: whether an authorisation can still be
    // used is the chain's judgement, never this process's clock.
    const head = await this.client.getBlock({ blockTag: "latest" });
    const expired = head.timestamp > BigInt(authorization.validBefore) + EXPIRY_MARGIN_SECONDS;
    if (!(await this.authorizationUsed(authorization, head.number))) return expired ? "failed" : "pending";
    // Spent, and not (or not yet seen to be) by the transaction on record: by another that paid (a
    // resubmission, a settlement whose answer was lost), or by a cancellation that paid nothing.
    if (await this.paidInWindow(authorization, head)) return "settled";
    // No payment found. Judged `failed` only once no use can still be coming into view (an RPC
    // node's log index may trail its head by a block): until then it waits, credited nothing.
    return expired ? "failed" : "pending";
  }

  /** Whether the authorisation's nonce was spent on chain, used or cancelled (as of `blockNumber`, default the latest block). */
  async authorizationUsed(authorization: AuthorizationFacts, blockNumber?: bigint): Promise<boolean> {
    if (authorization.kind === "eip3009") {
      return this.client.readContract({
        address: authorization.token as Hex,
        abi: EIP3009_ABI,
        functionName: "authorizationState",
        args: [authorization.from as Hex, authorization.nonce as Hex],
        blockNumber,
      });
    }
    const nonce = BigInt(authorization.nonce);
    const word = await this.client.readContract({
      address: PERMIT2_ADDRESS,
      abi: PERMIT2_ABI,
      functionName: "nonceBitmap",
      args: [authorization.from as Hex, nonce >> 8n],
      blockNumber,
    });
    return (word & (1n << (nonce & 255n))) !== 0n;
  }

  /**
   * Whether transaction `hash` succeeded and paid with this authorisation: the token's `Transfer`
   * from the payer to its payee of the amount, in a transaction that spent this very nonce.
   */
  private async paidIn(hash: Hex, authorization: AuthorizationFacts): Promise<boolean> {
    const receipt = await this.client.getTransactionReceipt({ hash }).catch((error: Error) => {
      if (error.name === "TransactionReceiptNotFoundError") return undefined;
      throw error;
    });
    if (receipt?.status !== "success" || !carriesTransfer(receipt.logs, authorization)) return false;
    if (authorization.kind === "eip3009") return carriesAuthorizationUse(receipt.logs, authorization);
    return this.spendsPermit(hash, authorization);
  }

  /** Whether transaction `hash` is a call to an x402 Permit2 proxy spending this permit (its owner, nonce and token). */
  private async spendsPermit(hash: Hex, authorization: AuthorizationFacts): Promise<boolean> {
    const transaction = await this.client.getTransaction({ hash });
    const proxy = PERMIT2_PROXIES.find((candidate) =>
      transaction.to ? isAddressEqual(candidate.address, transaction.to) : false,
    );
    if (!proxy) return false;
    let args: readonly unknown[];
    try {
      args = (decodeFunctionData({ abi: proxy.abi, data: transaction.input }).args ??
        []) as readonly unknown[];
    } catch {
      return false;
    }
    // `settle(permit, [amount,] owner, witness, signature)`, `settleWithPermit(permit2612, permit, ...)`:
    // the permit is the argument with a nonce and a permitted token, the owner the one address.
    const permit = args.find(isPermit);
    const owner = args.find((arg): arg is string => typeof arg === "string" && arg.length === 42);
    return (
      permit !== undefined &&
      owner !== undefined &&
      permit.nonce === BigInt(authorization.nonce) &&
      isAddressEqual(owner as Hex, authorization.from as Hex) &&
      isAddressEqual(permit.permitted.token as Hex, authorization.token as Hex)
    );
  }

  /**
   * Whether some transaction paid with this authorisation, among those mined while it could be used (from its `validAfter` to its deadline, at most {@link MAX_SEARCH_BLOCKS}
   * blocks), searched from the latest down. EIP-3009 tokens log each use of a nonce
   * (`AuthorizationUsed`, never for a cancellation); Permit2 logs none, so the token's transfers
   * from the payer to the payee are the candidates, each checked for the nonce it spent.
   */
  private async paidInWindow(
    authorization: AuthorizationFacts,
    head: Block<bigint, false, "latest">,
  ): Promise<boolean> {
    const validBefore = BigInt(authorization.validBefore);
    const top =
      head.timestamp <= validBefore ? head.number : await this.lastBlockAtOrBefore(validBefore, head);
    const start = await this.lastBlockAtOrBefore(BigInt(authorization.validAfter), head);
    const bottom = start > top - MAX_SEARCH_BLOCKS ? start : top - MAX_SEARCH_BLOCKS;
    // The transaction on record is looked at again: it may have been mined since.
    const tried = new Set<string>();
    for (let toBlock = top; toBlock >= bottom && toBlock >= 0n; toBlock -= LOG_RANGE_BLOCKS) {
      const fromBlock = toBlock - LOG_RANGE_BLOCKS + 1n > bottom ? toBlock - LOG_RANGE_BLOCKS + 1n : bottom;
      for (const hash of await this.candidates(authorization, fromBlock, toBlock)) {
        if (tried.has(hash.toLowerCase())) continue;
        tried.add(hash.toLowerCase());
        if (await this.paidIn(hash, authorization)) return true;
      }
    }
    return false;
  }

  /** The transactions between two blocks that may have paid with this authorisation. */
  private async candidates(
    authorization: AuthorizationFacts,
    fromBlock: bigint,
    toBlock: bigint,
  ): Promise<Hex[]> {
    const logs =
      authorization.kind === "eip3009"
        ? await this.client.getLogs({
            address: authorization.token as Hex,
            event: TOKEN_EVENTS[1],
            args: { authorizer: authorization.from as Hex, nonce: authorization.nonce as Hex },
            fromBlock,
            toBlock,
          })
        : await this.client.getLogs({
            address: authorization.token as Hex,
            event: TOKEN_EVENTS[0],
            args: { from: authorization.from as Hex, to: authorization.to as Hex },
            fromBlock,
            toBlock,
          });
    return logs.flatMap((log) => (log.transactionHash ? [log.transactionHash] : [])).reverse();
  }

  /** The highest block mined at or before `timestamp` (block 0 when none is): a binary search on block times. */
  private async lastBlockAtOrBefore(
    timestamp: bigint,
    head: Block<bigint, false, "latest">,
  ): Promise<bigint> {
    if (head.timestamp <= timestamp) return head.number;
    let low = 0n;
    let high = head.number;
    while (low < high) {
      const middle = (low + high + 1n) / 2n;
      const block = await this.client.getBlock({ blockNumber: middle });
      if (block.timestamp <= timestamp) low = middle;
      else high = middle - 1n;
    }
    return low;
  }
}

/** Whether `logs` carry the token's transfer from the payer to its payee of the amount signed (at most it, for Permit2). */
function carriesTransfer(logs: Log[], authorization: AuthorizationFacts): boolean {
  const most = BigInt(authorization.value);
  return parseEventLogs({ abi: TOKEN_EVENTS, eventName: "Transfer", logs }).some(
    (log) =>
      isAddressEqual(log.address, authorization.token as Hex) &&
      isAddressEqual(log.args.from, authorization.from as Hex) &&
      isAddressEqual(log.args.to, authorization.to as Hex) &&
      (authorization.kind === "eip3009"
        ? log.args.value === most
        : log.args.value > 0n && log.args.value <= most),
  );
}

/** Whether `logs` carry the token's `AuthorizationUsed` for this payer's nonce (a use, never a cancellation). */
function carriesAuthorizationUse(logs: Log[], authorization: AuthorizationFacts): boolean {
  return parseEventLogs({ abi: TOKEN_EVENTS, eventName: "AuthorizationUsed", logs }).some(
    (log) =>
      isAddressEqual(log.address, authorization.token as Hex) &&
      isAddressEqual(log.args.authorizer, authorization.from as Hex) &&
      log.args.nonce.toLowerCase() === authorization.nonce.toLowerCase(),
  );
}

/**
 * What the chain says about an x402 settlement the service could not see through: its
 * transaction's receipt, or, when no transaction is known (a facilitator that did not answer, a
 * crash mid-settlement), whether the authorisation's nonce was used. Either way the payee is the
 * one the payer signed for, so a used authorisation is a payment received.
 *
 * @module
 */
import { createPublicClient, type Hex, http, type PublicClient, parseAbi } from "viem";
import { PERMIT2_ADDRESS } from "../chain/addresses.ts";

/** The public facts of an authorisation (never its signature). */
export type AuthorizationFacts = {
  kind: "eip3009" | "permit2";
  from: string;
  nonce: string;
  /** The token (the EIP-3009 contract; for Permit2 the permitted token). */
  token: string;
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

const EIP3009_ABI = parseAbi([
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
]);
const PERMIT2_ABI = parseAbi(["function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)"]);

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
    if (settlement.transaction) {
      const receipt = await this.client
        .getTransactionReceipt({ hash: settlement.transaction as Hex })
        .catch((error: Error) => {
          if (error.name === "TransactionReceiptNotFoundError") return undefined;
          throw error;
        });
      if (receipt?.status === "success") return "settled";
    }
    // The nonce and the chain's own time, read at one block: whether an authorisation can still be
    // used is the chain's judgement, never this process's clock.
    const block = await this.client.getBlock({ blockTag: "latest" });
    if (await this.authorizationUsed(settlement.authorization, block.number)) return "settled";
    const chainTime = block.timestamp;
    const expired = chainTime > BigInt(settlement.authorization.validBefore) + EXPIRY_MARGIN_SECONDS;
    return expired ? "failed" : "pending";
  }

  /** Whether the authorisation's nonce was spent on chain (as of `blockNumber`, default the latest block). */
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
}

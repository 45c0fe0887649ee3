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
  outcome(
    settlement: { transaction?: string; authorization: AuthorizationFacts },
    now: Date,
  ): Promise<SettlementOutcome>;
}

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

  async outcome(
    settlement: { transaction?: string; authorization: AuthorizationFacts },
    now: Date,
  ): Promise<SettlementOutcome> {
    if (settlement.transaction) {
      const receipt = await this.client
        .getTransactionReceipt({ hash: settlement.transaction as Hex })
        .catch((error: Error) => {
          if (error.name === "TransactionReceiptNotFoundError") return undefined;
          throw error;
        });
      if (receipt?.status === "success") return "settled";
    }
    if (await this.authorizationUsed(settlement.authorization)) return "settled";
    const expired = BigInt(Math.floor(now.getTime() / 1000)) > BigInt(settlement.authorization.validBefore);
    return expired ? "failed" : "pending";
  }

  /** Whether the authorisation's nonce was spent on chain. */
  async authorizationUsed(authorization: AuthorizationFacts): Promise<boolean> {
    if (authorization.kind === "eip3009") {
      return this.client.readContract({
        address: authorization.token as Hex,
        abi: EIP3009_ABI,
        functionName: "authorizationState",
        args: [authorization.from as Hex, authorization.nonce as Hex],
      });
    }
    const nonce = BigInt(authorization.nonce);
    const word = await this.client.readContract({
      address: PERMIT2_ADDRESS,
      abi: PERMIT2_ABI,
      functionName: "nonceBitmap",
      args: [authorization.from as Hex, nonce >> 8n],
    });
    return (word & (1n << (nonce & 255n))) !== 0n;
  }
}

import { Credential, Receipt } from "mppx";
import type { Client, Hex } from "viem";
import { getTransactionReceipt } from "viem/actions";
import { type Refusal, refusal } from "../refusal.ts";
import { tempoClient } from "./chain.ts";
import { type ChargePayer, chargePayerOf, isUnspentCredential } from "./charge-payer.ts";
import type { MppRails } from "./rails.ts";

/** The outcome of presenting an MPP credential for a one-shot charge. */
export type MppChargeOutcome =
  | { kind: "refused"; refusal: Refusal }
  | {
      kind: "paid";
      /** Transaction hash of the settled charge. */
      reference: string;
      network: string;
      currency: string;
      receiptHeaders: Record<string, string>;
    };

/** The chain an MPP rail is paid on. */
export type MppChain = {
  rpcUrl: string;
  chainId: number;
  currency: `0x${string}`;
  /** Who charges are paid to. */
  recipient: `0x${string}`;
};

/**
 * The MPP rail as the payment gate uses it: `tempo.charge` challenges for a price, the verified
 * payer of a charge credential (before anything is charged), and a charge that verifies and
 * settles a credential (the MPP server broadcasts the client's transfer before answering).
 */
export class MppRail {
  private readonly client: Client;

  constructor(
    private readonly rails: MppRails,
    private readonly chain: MppChain,
  ) {
    this.client = tempoClient(chain.rpcUrl, chain.chainId);
  }

  /** The CAIP-2 network charges are paid on. */
  get network(): string {
    return `eip155:${this.chain.chainId}`;
  }

  /** The token charges are paid in. */
  get currency(): `0x${string}` {
    return this.chain.currency;
  }

  /** `WWW-Authenticate: Payment …` values for a one-shot charge at this price. */
  async challenges(request: Request, priceUsd: string): Promise<string[]> {
    return [await this.rails.chargeChallenge(request, priceUsd)];
  }

  /**
   * Who pays a charge credential, from what can be verified (the signed transaction, or the
   * transfer on chain), never from what the credential claims; undefined when it names nobody.
   */
  payerOf(request: Request): Promise<ChargePayer | undefined> {
    return chargePayerOf(request, {
      client: this.client,
      currency: this.chain.currency,
      recipient: this.chain.recipient,
    });
  }

  /** Whether a credential is a signed transaction the chain has not seen: proof its payer presents it now. */
  isUnspent(credential: ChargePayer): Promise<boolean> {
    return isUnspentCredential(credential, this.client);
  }

  /** What the chain says of a charge's transaction: succeeded, reverted, or not seen (yet). */
  async chargeOutcome(transaction: Hex): Promise<"settled" | "failed" | "pending"> {
    const receipt = await getTransactionReceipt(this.client, { hash: transaction }).catch(() => undefined);
    if (!receipt) return "pending";
    return receipt.status === "success" ? "settled" : "failed";
  }

  async charge(request: Request, priceUsd: string): Promise<MppChargeOutcome> {
    const result = await this.rails.charge(request, priceUsd);
    if (result.status === 402) return { kind: "refused", refusal: await refusalOf(result.challenge) };
    const receiptHeader = result.withReceipt(new Response(null)).headers.get("payment-receipt") ?? "";
    const receipt = Receipt.deserialize(receiptHeader);
    return {
      kind: "paid",
      reference: receipt.reference,
      network: this.network,
      currency: this.currency,
      receiptHeaders: { "Payment-Receipt": receiptHeader },
    };
  }

  /** Session, request mode (`/api/fortune/llm`). */
  session(request: Request) {
    return this.rails.session(request);
  }

  /** Session over SSE, each token charged before it is sent (`/api/fortune/stream`). */
  stream(request: Request, tokens: (signal: AbortSignal) => AsyncIterable<string>) {
    return this.rails.stream(request, tokens);
  }
}

/** The MPP problem as a refusal: its type's last segment as the reason, its title as the message. */
async function refusalOf(challenge: Response): Promise<Refusal> {
  const problem = (await challenge
    .clone()
    .json()
    .catch(() => ({}))) as { type?: string; title?: string };
  const kind = problem.type?.split("/").at(-1) ?? "payment-required";
  return refusal(`mpp_${kind.replaceAll("-", "_")}`, problem.title ?? "The MPP credential was not accepted.");
}

/**
 * The wallet a credential's `source` claims (`did:pkh:eip155:<chain>:<address>`), lowercased. A
 * claim, not a proof: never use it to scope anything a payer may fetch.
 */
export function payerOfCredential(request: Request): string | undefined {
  try {
    return Credential.fromRequest(request).source?.split(":").at(-1)?.toLowerCase();
  } catch {
    return undefined;
  }
}

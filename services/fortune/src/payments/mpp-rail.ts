import type { MppRails } from "@app/payments";
import { Credential, Receipt } from "mppx";

/** The outcome of presenting an MPP credential for a one-shot charge. */
export type MppChargeOutcome =
  | { kind: "challenge"; reason: string }
  | {
      kind: "paid";
      payer: string;
      /** Transaction hash of the settled charge. */
      reference: string;
      network: string;
      currency: string;
      receiptHeaders: Record<string, string>;
    };

/**
 * The MPP rail as the payment gate uses it: `tempo.charge` challenges for a price,
 * and a charge that verifies and settles a credential (the MPP server broadcasts
 * the client's transfer before answering), with the payer and receipt for the ledger.
 */
export class MppRail {
  constructor(
    private readonly rails: MppRails,
    private readonly chain: { chainId: number; currency: `0x${string}` },
  ) {}

  /** `WWW-Authenticate: Payment …` values for a one-shot charge at this price. */
  async challenges(request: Request, priceUsd: string): Promise<string[]> {
    return [await this.rails.chargeChallenge(request, priceUsd)];
  }

  async charge(request: Request, priceUsd: string): Promise<MppChargeOutcome> {
    const result = await this.rails.charge(request, priceUsd);
    if (result.status === 402) return { kind: "challenge", reason: await problemOf(result.challenge) };
    const receiptHeader = result.withReceipt(new Response(null)).headers.get("payment-receipt") ?? "";
    const receipt = Receipt.deserialize(receiptHeader);
    return {
      kind: "paid",
      payer: payerOfCredential(request) ?? "unknown",
      reference: receipt.reference,
      network: `eip155:${this.chain.chainId}`,
      currency: this.chain.currency,
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

/** The wallet named in an MPP credential's `source` (`did:pkh:eip155:<chain>:<address>`), lowercased. */
export function payerOfCredential(request: Request): string | undefined {
  try {
    return Credential.fromRequest(request).source?.split(":").at(-1)?.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The MPP problem's type and detail, as the reason in our combined 402. */
async function problemOf(challenge: Response): Promise<string> {
  const problem = (await challenge
    .clone()
    .json()
    .catch(() => ({}))) as { type?: string; detail?: string; title?: string };
  const kind = problem.type?.split("/").at(-1) ?? "payment-required";
  return `mpp_${kind.replaceAll("-", "_")}${problem.detail ? `: ${problem.detail}` : ""}`;
}

import type { Database } from "@app/db";
import type { SessionChannels } from "@app/payments";
import { payerOfCredential } from "@app/payments";
import { Credential } from "mppx";
import type { Hex } from "viem";
import { usdToAtomic } from "../domain/money.ts";
import { SessionChannelStore } from "../store/session-channels.ts";
import { type SessionCharge, SessionLedger } from "../store/session-ledger.ts";

/** A confirmed settlement of a session channel (ours, or mppx's when a client closes its channel). */
export type ChannelSettlement = {
  channelId: string;
  txHash: string;
  /** Cumulative amount settled on chain. */
  amount: bigint;
  /** The channel's final settlement (cooperative close). */
  closed?: boolean;
};

/** The session receipt mppx puts on a paid response (`Payment-Receipt`, base64url JSON). */
type SessionReceipt = { channelId?: string; reference?: string; spent?: string };

function receiptOf(response: Response): SessionReceipt {
  const header = response.headers.get("payment-receipt");
  if (!header) throw new Error("a paid session response carries no Payment-Receipt");
  return JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as SessionReceipt;
}

/**
 * What MPP sessions are billed, in the ledger: each charge is `accrued` against its channel until a
 * confirmed settlement of that channel covers it, then `settled` with that transaction. The routes
 * call one method each; settlements arrive from the settler and from mppx (a client's close).
 */
export class SessionBilling {
  constructor(
    private readonly db: Database,
    private readonly channels: SessionChannels,
  ) {}

  /** Bills one request of a request-mode session (llm), from the receipt on its paid response. */
  async billRequest(route: string, request: Request, response: Response, priceUsd: string): Promise<void> {
    const receipt = receiptOf(response);
    const channelId = receipt.channelId ?? receipt.reference;
    if (!channelId || receipt.spent === undefined) throw new Error("a session receipt names no channel");
    await this.accrue({
      route,
      payer: payerOfCredential(request),
      channelId: channelId.toLowerCase(),
      amountAtomic: usdToAtomic(priceUsd),
      channelCumulativeAtomic: BigInt(receipt.spent),
    });
  }

  /** Bills the tokens a stream sent (stream), once it ended; nothing when it sent none. */
  async billStream(route: string, request: Request, tokens: number, unitPriceUsd: string): Promise<void> {
    if (tokens <= 0) return;
    const channelId = (Credential.fromRequest(request).payload as { channelId: Hex }).channelId.toLowerCase();
    const amountAtomic = usdToAtomic(unitPriceUsd) * BigInt(tokens);
    const channel = await this.channels.inspect(channelId as Hex);
    await this.accrue({
      route,
      payer: payerOfCredential(request),
      channelId,
      amountAtomic,
      // What the channel has spent by now covers this stream (and perhaps a little more).
      channelCumulativeAtomic: channel?.spent ?? amountAtomic,
    });
  }

  /** A settlement of a channel confirmed: the charges it covers become `settled` with its transaction. */
  async settled(settlement: ChannelSettlement): Promise<void> {
    const channelId = settlement.channelId.toLowerCase();
    await this.db.transaction(async (tx) => {
      // The channel's row first (as in accrue): a charge being billed and a settlement are serialised.
      await new SessionChannelStore(tx).settled(
        channelId,
        settlement.amount,
        settlement.txHash,
        settlement.closed ?? false,
      );
      await new SessionLedger(tx).settleCovered(channelId, settlement.amount, settlement.txHash);
    });
  }

  private async accrue(charge: Omit<SessionCharge, "settledBy">): Promise<void> {
    await this.db.transaction(async (tx) => {
      const channel = await new SessionChannelStore(tx).accrue(
        charge.channelId,
        charge.payer,
        charge.channelCumulativeAtomic,
      );
      // A settlement that confirmed before this charge was written already covers it.
      const covered = BigInt(channel.settledAtomic) >= charge.channelCumulativeAtomic;
      await new SessionLedger(tx).record({
        ...charge,
        settledBy: covered ? (channel.settlementTx ?? undefined) : undefined,
      });
    });
  }
}

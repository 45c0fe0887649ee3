import { type Logger, newId } from "@app/core";
import type { Database } from "@app/db";
import type { CloseRequestFeed, SessionChannels } from "@app/payments";
import type { Hex } from "viem";
import { SessionChannelStore } from "../store/session-channels.ts";
import type { SessionBilling } from "./session-billing.ts";

/** Options of {@link SessionSettler}. */
export type SessionSettlerOptions = {
  db: Database;
  channels: SessionChannels;
  billing: SessionBilling;
  logger: Logger;
  /** Unsettled vouchers are settled at most this long after the first of them was billed. */
  intervalMs: number;
  /** How often the reserve is polled for close requests and due channels are looked for (default ≤ 5 s). */
  pollMs?: number;
  /** How long a claim on a channel holds if this instance dies while settling it (default 2 min). */
  leaseMs?: number;
  /** Channels settled per round at most (default 20). */
  batch?: number;
};

/** What one round did. */
export type SettlementRound = {
  /** Channels whose payer requested close, newly seen and marked. */
  closeRequested: string[];
  settled: string[];
  failed: string[];
};

/** An error's message fit for a log: its first line, with anything as long as a signature cut out. */
export function describeFailure(error: unknown): string {
  const text = (error as { shortMessage?: string }).shortMessage ?? (error as Error).message ?? String(error);
  return (text.split("\n")[0] ?? "").replace(/0x[0-9a-fA-F]{67,}/g, "0x…");
}

/**
 * Settles MPP session channels on chain so that the payer can never take back what was served:
 * channels billed ahead of their settlement are settled within `intervalMs`, and a channel whose
 * payer requests close on the reserve is refused further vouchers and settled at once, well
 * inside the reserve's grace period. Every instance runs one; a lease per channel in the database
 * makes sure one instance settles a channel at a time, and a failed settlement is retried at the
 * next round.
 */
export class SessionSettler {
  private readonly owner = newId("settler");
  private readonly store: SessionChannelStore;
  private readonly pollMs: number;
  private feed: CloseRequestFeed | undefined;
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: SessionSettlerOptions) {
    this.store = new SessionChannelStore(options.db);
    this.pollMs = options.pollMs ?? Math.min(5_000, options.intervalMs);
  }

  /** Runs a round now and then every poll interval, until {@link stop}. */
  start(): void {
    const tick = async () => {
      this.round = this.runOnce().catch((error: unknown) =>
        this.options.logger.error({ reason: describeFailure(error) }, "session settlement round failed"),
      );
      await this.round;
      if (!this.stopped) this.timer = setTimeout(tick, this.pollMs).unref();
    };
    void tick();
  }

  /** Stops the rounds and waits for the one under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.round;
  }

  /** One round: take in new close requests, then settle the channels that are due. */
  async runOnce(): Promise<SettlementRound> {
    const outcome: SettlementRound = { closeRequested: [], settled: [], failed: [] };
    await this.takeCloseRequests(outcome).catch((error: unknown) =>
      this.options.logger.error({ reason: describeFailure(error) }, "could not read close requests"),
    );
    const claimed = await this.store.claimDue({
      owner: this.owner,
      // Due a poll early, so that no voucher waits longer than the interval.
      dueAfterMs: Math.max(0, this.options.intervalMs - this.pollMs),
      leaseMs: this.options.leaseMs ?? 120_000,
      limit: this.options.batch ?? 20,
    });
    for (const channelId of claimed) {
      if (this.stopped) {
        await this.store.release(channelId, this.owner);
        continue;
      }
      const failure = await this.settle(channelId as Hex).then(
        () => undefined,
        (error: unknown) => describeFailure(error),
      );
      (failure ? outcome.failed : outcome.settled).push(channelId);
      if (failure) this.options.logger.error({ channelId, reason: failure }, "session settlement failed");
      await this.store.release(channelId, this.owner, failure);
    }
    return outcome;
  }

  /** Marks each newly close-requested channel of ours in the MPP store (refused from now on), then due. */
  private async takeCloseRequests(outcome: SettlementRound): Promise<void> {
    const feed = this.feed ?? this.options.channels.watchCloseRequests();
    this.feed = feed;
    await feed.poll(async ({ channelId }) => {
      if (!(await this.options.channels.markCloseRequested(channelId))) return;
      await this.store.closeRequested(channelId.toLowerCase());
      outcome.closeRequested.push(channelId.toLowerCase());
      this.options.logger.info({ channelId }, "payer requested close: channel refused, settling it");
    });
  }

  /** Settles the channel's highest voucher when it is above what is settled, and records it. */
  private async settle(channelId: Hex): Promise<void> {
    const channel = await this.options.channels.inspect(channelId);
    if (!channel || channel.finalized) {
      // Unknown to the MPP server, or closed by the client (that close was recorded as it happened).
      this.options.logger.warn({ channelId }, "nothing to settle: channel unknown or already closed");
      await this.store.finished(channelId);
      return;
    }
    if (channel.highestVoucherAmount > channel.settledOnChain) {
      const settlement = await this.options.channels.settle(channelId);
      this.options.logger.info(
        { channelId, txHash: settlement.txHash, amount: settlement.amount.toString() },
        "session channel settled",
      );
      await this.options.billing.settled(settlement);
      return;
    }
    const record = await this.store.get(channelId);
    if (record?.settlementTx && BigInt(record.settledAtomic) >= channel.settledOnChain) {
      await this.options.billing.settled({
        channelId,
        txHash: record.settlementTx,
        amount: channel.settledOnChain,
      });
      return;
    }
    throw new Error("settled on chain beyond the recorded settlement: its transaction is not known here");
  }
}

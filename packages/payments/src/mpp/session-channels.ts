/**
 * Session channels outside a request: what the MPP store knows about a channel, settling its
 * highest voucher on chain (mppx's own `tempo.settle`), and marking a channel whose payer asked the
 * reserve to close it, so that the MPP server refuses its vouchers and charges from then on (mppx
 * refuses any channel whose stored `closeRequestedAt` is set).
 *
 * @module
 */
import { type Store, tempo } from "mppx/server";
import type { Account, Address, Client, Hex } from "viem";
import { readContract } from "viem/actions";
import { type CloseRequestFeed, watchCloseRequests } from "./close-requests.ts";
import { CHANNEL_RESERVE_ABI, CHANNEL_RESERVE_ADDRESS } from "./constants.ts";

/** A session channel as the MPP store knows it (amounts in atomic units, cumulative). */
export interface SessionChannelState {
  channelId: Hex;
  payer: Address;
  /** The highest voucher the server accepted: what may be settled. */
  highestVoucherAmount: bigint;
  /** What the channel has paid for so far. */
  spent: bigint;
  /** What is settled on chain, as the store last saw it. */
  settledOnChain: bigint;
  /** The payer asked the reserve to close the channel: no voucher or charge is accepted any more. */
  closeRequested: boolean;
  /** Closed on chain by the server (cooperative close). */
  finalized: boolean;
}

/** A confirmed on-chain settlement of a channel. */
export interface SessionSettlement {
  channelId: Hex;
  txHash: Hex;
  /** Cumulative amount settled on chain after this transaction. */
  amount: bigint;
}

/** Channel operations for a settler. */
export interface SessionChannels {
  /** The channel in the MPP store, or undefined when this server never saw it. */
  inspect(channelId: Hex): Promise<SessionChannelState | undefined>;
  /** Settles the channel's highest voucher on chain and waits for the receipt. */
  settle(channelId: Hex): Promise<SessionSettlement>;
  /**
   * Marks the channel close-requested in the MPP store when the reserve says its close was
   * requested; false when the store does not know the channel or the request is no longer pending.
   */
  markCloseRequested(channelId: Hex): Promise<boolean>;
  /** A new feed of the reserve's `CloseRequested` events for this payee (its own cursor). */
  watchCloseRequests(): CloseRequestFeed;
}

/** Options of {@link createSessionChannels}. */
export interface SessionChannelsOptions {
  /** The MPP server's store (the same one `createMppRails` was given). */
  store: Store.AtomicStore;
  /** A Tempo client (the RPC the MPP server uses). */
  client: Client;
  /** The operator (or payee) account that sends the settle transactions. */
  account: Account;
  /** The payee whose channels these are. */
  payee: Address;
  /** Close grace period of the reserve, in seconds (TIP-1034: 900). */
  closeGraceSeconds?: number;
  /** The reserve (default: the canonical TIP-1034 address). */
  escrow?: Address;
}

/** The fields of mppx's stored channel state that are read or changed here. */
type StoredChannel = {
  payer: Address;
  highestVoucherAmount: bigint;
  spent: bigint;
  settledOnChain: bigint;
  closeRequestedAt: bigint;
  finalized: boolean;
};

const storeKey = (channelId: Hex) => channelId.toLowerCase();

/** Creates the channel operations over an MPP store and an operator client. */
export function createSessionChannels(options: SessionChannelsOptions): SessionChannels {
  const { store, client } = options;
  const escrow = options.escrow ?? CHANNEL_RESERVE_ADDRESS;
  const stored = async (channelId: Hex) => (await store.get(storeKey(channelId))) as StoredChannel | null;

  return {
    async inspect(channelId) {
      const channel = await stored(channelId);
      if (!channel) return undefined;
      return {
        channelId: storeKey(channelId) as Hex,
        payer: channel.payer,
        highestVoucherAmount: channel.highestVoucherAmount,
        spent: channel.spent,
        settledOnChain: channel.settledOnChain,
        closeRequested: channel.closeRequestedAt !== 0n,
        finalized: channel.finalized,
      };
    },
    async settle(channelId) {
      const txHash = await tempo.settle(store, client, channelId, { account: options.account });
      // mppx records the settled amount from the receipt's Settled event before it returns.
      const channel = await stored(channelId);
      return { channelId: storeKey(channelId) as Hex, txHash, amount: channel?.settledOnChain ?? 0n };
    },
    async markCloseRequested(channelId) {
      const state = await readContract(client, {
        address: escrow,
        abi: CHANNEL_RESERVE_ABI,
        functionName: "getChannelState",
        args: [channelId],
      });
      const requestedAt = BigInt(state.closeRequestedAt);
      if (requestedAt === 0n) return false;
      return store.update(storeKey(channelId), (current) => {
        const channel = current as StoredChannel | null;
        if (!channel || channel.finalized) return { op: "noop", result: false };
        if (channel.closeRequestedAt >= requestedAt) return { op: "noop", result: true };
        return { op: "set", value: { ...channel, closeRequestedAt: requestedAt }, result: true };
      });
    },
    watchCloseRequests: () =>
      watchCloseRequests({
        client,
        payee: options.payee,
        escrow,
        closeGraceSeconds: options.closeGraceSeconds,
      }),
  };
}

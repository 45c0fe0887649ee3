/**
 * The reserve's `CloseRequested` events for one payee, read by polling logs from the last block seen.
 *
 * A payer who requests close can withdraw everything not settled once the grace period (900 s on
 * TIP-1034) has passed, so the payee must settle within it. The cursor lives in memory: on (re)start
 * the feed rescans from the first block of the last grace period, which holds every close request
 * that can still be acted on; older ones are past saving either way. Handling a request twice must
 * therefore be harmless.
 *
 * @module
 */
import { type Address, type Client, getAbiItem, type Hex } from "viem";
import { getBlock, getBlockNumber, getLogs } from "viem/actions";
import { CHANNEL_RESERVE_ABI, CHANNEL_RESERVE_ADDRESS } from "./constants.ts";

/** One `CloseRequested` event. */
export interface CloseRequest {
  channelId: Hex;
  payer: Address;
  /** When the payer may withdraw (unix seconds). */
  closeGraceEnd: bigint;
  blockNumber: bigint;
}

/** A cursor over the reserve's close requests. */
export interface CloseRequestFeed {
  /**
   * Reads the close requests since the last poll and hands each to `handle`, in chain order. The
   * cursor moves past a range of blocks only once every request in it was handled: when `handle`
   * throws, the next poll reads that range again.
   */
  poll(handle: (request: CloseRequest) => Promise<void>): Promise<void>;
}

/** Options of {@link watchCloseRequests}. */
export interface WatchCloseRequestsOptions {
  client: Client;
  /** Only close requests of this payee's channels. */
  payee: Address;
  escrow?: Address;
  /** The reserve's close grace period in seconds (default 900, TIP-1034's). */
  closeGraceSeconds?: number;
  /** Most blocks asked for in one `eth_getLogs` (default 2 000; RPCs cap the range). */
  maxBlockRange?: bigint;
}

const CLOSE_REQUESTED = getAbiItem({ abi: CHANNEL_RESERVE_ABI, name: "CloseRequested" });

/** The first block whose timestamp is at or after `timestamp` (binary search; the latest if none). */
async function firstBlockSince(client: Client, timestamp: bigint): Promise<bigint> {
  let high = await getBlockNumber(client, { cacheTime: 0 });
  let low = 0n;
  while (low < high) {
    const middle = (low + high) / 2n;
    const block = await getBlock(client, { blockNumber: middle });
    if (block.timestamp >= timestamp) high = middle;
    else low = middle + 1n;
  }
  return low;
}

/** Starts a feed of close requests; its first poll rescans the last grace period. */
export function watchCloseRequests(options: WatchCloseRequestsOptions): CloseRequestFeed {
  const { client } = options;
  const escrow = options.escrow ?? CHANNEL_RESERVE_ADDRESS;
  const grace = BigInt(options.closeGraceSeconds ?? 900);
  const maxRange = options.maxBlockRange ?? 2_000n;
  let nextBlock: bigint | undefined;

  const safeStart = async () => {
    const latest = await getBlock(client, { blockTag: "latest" });
    return firstBlockSince(client, latest.timestamp > grace ? latest.timestamp - grace : 0n);
  };

  return {
    async poll(handle) {
      let fromBlock = nextBlock ?? (await safeStart());
      const latest = await getBlockNumber(client, { cacheTime: 0 });
      while (fromBlock <= latest) {
        const toBlock: bigint = fromBlock + maxRange - 1n < latest ? fromBlock + maxRange - 1n : latest;
        const logs = await getLogs(client, {
          address: escrow,
          event: CLOSE_REQUESTED,
          args: { payee: options.payee },
          fromBlock,
          toBlock,
        });
        for (const log of logs) {
          const { channelId, payer, closeGraceEnd } = log.args;
          if (!channelId || !payer || closeGraceEnd === undefined) continue;
          await handle({ channelId, payer, closeGraceEnd, blockNumber: log.blockNumber ?? toBlock });
        }
        fromBlock = toBlock + 1n;
        nextBlock = fromBlock;
      }
      nextBlock = fromBlock;
    },
  };
}

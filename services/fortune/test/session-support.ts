/**
 * Helpers of the session settlement tests: a payer with the official MPP session client, the
 * payer's own calls to the channel reserve (requestClose, withdraw), the reserve's events, anvil's
 * clock, and the ledger rows of a channel.
 */
import {
  CHANNEL_RESERVE_ABI,
  CHANNEL_RESERVE_ADDRESS,
  createMppClient,
  type MppSessionManager,
  tempoClient,
  tip20Balance,
} from "@app/payments";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { getContractEvents, waitForTransactionReceipt, writeContract } from "viem/actions";
import { expect } from "vitest";
import { type FortuneHarness, PAYEE } from "../testing/harness.ts";

type ReserveEvent = "ChannelOpened" | "Settled" | "CloseRequested" | "ChannelClosed";

/** A ledger row of a session charge. */
export type SessionRow = { state: string; reference: string | null; cumulative: number; amount: number };

export const promptBody = (prompt: string): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ prompt }),
});

/** The session helpers for one payer on a running fortune harness. */
export function sessionKit(h: FortuneHarness, key: Hex) {
  const account = privateKeyToAccount(key);
  const client = tempoClient(h.tempo.rpcUrl, h.tempo.chainId, account);

  const events = <E extends ReserveEvent>(eventName: E, channelId: Hex) =>
    getContractEvents(client, {
      address: CHANNEL_RESERVE_ADDRESS,
      abi: CHANNEL_RESERVE_ABI,
      eventName,
      // Every reserve event indexes channelId; viem cannot see that through the union of names.
      args: { channelId } as never,
      fromBlock: 0n,
    });

  const descriptorOf = async (channelId: Hex) => {
    const [opened] = await events("ChannelOpened", channelId);
    const args = opened?.args as Record<string, string> | undefined;
    if (!args) throw new Error(`no ChannelOpened event for ${channelId}`);
    return {
      payer: args.payer as Hex,
      payee: args.payee as Hex,
      operator: args.operator as Hex,
      token: args.token as Hex,
      salt: args.salt as Hex,
      authorizedSigner: args.authorizedSigner as Hex,
      expiringNonceHash: args.expiringNonceHash as Hex,
    };
  };

  return {
    events,
    payeeBalance: () => tip20Balance(h.tempo.rpcUrl, h.tempo.currency, PAYEE),

    /** Opens a session with the official client and makes `calls` paid llm requests on it. */
    async paidLlmCalls(calls: number): Promise<{ session: MppSessionManager; channelId: Hex }> {
      const payer = createMppClient({ rpcUrl: h.tempo.rpcUrl, chainId: h.tempo.chainId, privateKey: key });
      const session = payer.session({ maxDeposit: "0.01" });
      for (let i = 1; i <= calls; i++) {
        const res = await session.fetch(`${h.url}/api/fortune/llm`, promptBody(`question ${i}`));
        expect(res.status).toBe(200);
      }
      const channelId = session.channelId?.toLowerCase() as Hex | undefined;
      if (!channelId) throw new Error("the session opened no channel");
      return { session, channelId };
    },

    /** The payer's own transaction on the reserve (not through the service); waits for success. */
    async payerCalls(functionName: "requestClose" | "withdraw", channelId: Hex): Promise<void> {
      const hash = await writeContract(client, {
        address: CHANNEL_RESERVE_ADDRESS,
        abi: CHANNEL_RESERVE_ABI,
        functionName,
        args: [await descriptorOf(channelId)],
        account,
        chain: client.chain,
      });
      expect((await waitForTransactionReceipt(client, { hash })).status).toBe("success");
    },

    /** The channel's session rows in the ledger, by cumulative amount. */
    ledgerRows: (channelId: Hex) =>
      h.db.query<SessionRow>(
        `SELECT state, reference, channel_cumulative_atomic AS cumulative, authorized_atomic AS amount
         FROM fortune.payments WHERE channel_id = $1 ORDER BY channel_cumulative_atomic`,
        [channelId],
      ),
  };
}

/** Moves anvil's clock forward and mines a block at the new time. */
export async function advanceChainTime(h: FortuneHarness, seconds: number): Promise<void> {
  for (const [method, params] of [
    ["evm_increaseTime", [seconds]],
    ["evm_mine", []],
  ] as const) {
    const res = await fetch(h.chain.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const body = (await res.json()) as { error?: unknown };
    if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  }
}

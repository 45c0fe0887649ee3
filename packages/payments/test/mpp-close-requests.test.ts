/**
 * Session channels outside a request: the reserve's close requests (a new feed rescans the last
 * grace period, as after a restart), marking a channel refused, settling its highest voucher.
 */
import { test } from "@app/testkit";
import { type Hex, pad } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { getContractEvents, waitForTransactionReceipt, writeContract } from "viem/actions";
import { afterAll, expect } from "vitest";
import {
  CHANNEL_RESERVE_ABI,
  CHANNEL_RESERVE_ADDRESS,
  type CloseRequest,
  type CloseRequestFeed,
  createMppClient,
  tempoClient,
} from "../src/mpp/index.ts";
import { mppTestEnv } from "./mpp-support.ts";

const env = mppTestEnv({
  schema: "mpp_close_requests_test",
  routes: (app, rails) => {
    app.post("/api/fortune/llm", async (c) => {
      const result = await rails.session(c.req.raw);
      if (result.status === 402) return result.challenge;
      return result.withReceipt(Response.json({ fortune: "Metered wisdom." }));
    });
  },
});
afterAll(env.stop);

const anvilRpc = async (url: string, method: string, params: unknown[]) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { error?: unknown };
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
};

const collect = async (feed: CloseRequestFeed): Promise<CloseRequest[]> => {
  const seen: CloseRequest[] = [];
  await feed.poll(async (request) => {
    seen.push(request);
  });
  return seen;
};

test("close requests: found by a feed started later, marked refused, settled; past the grace period no longer rescanned", async ({
  db,
}) => {
  const { baseUrl, local, rails, payerKey, anvil } = await env.setup(db);
  const account = privateKeyToAccount(payerKey);
  // The payer sends its own reserve calls (plain transactions): gas money, as on a local chain.
  await anvilRpc(anvil.rpcUrl, "anvil_setBalance", [account.address, "0x3635c9adc5dea00000"]);
  const client = tempoClient(local.rpcUrl, local.chainId, account);
  const session = createMppClient({
    rpcUrl: local.rpcUrl,
    chainId: local.chainId,
    privateKey: payerKey,
  }).session({
    maxDeposit: "0.01",
  });
  const ask = () => session.fetch(`${baseUrl}/api/fortune/llm`, { method: "POST", body: "{}" });
  for (let i = 0; i < 2; i++) expect((await ask()).status).toBe(200);
  const channelId = session.channelId?.toLowerCase() as Hex;
  const events = (eventName: "ChannelOpened" | "Settled") =>
    getContractEvents(client, {
      address: CHANNEL_RESERVE_ADDRESS,
      abi: CHANNEL_RESERVE_ABI,
      eventName,
      args: { channelId },
      fromBlock: 0n,
    });
  const opened = (await events("ChannelOpened"))[0]?.args as Record<string, Hex>;
  const descriptor = {
    payer: opened.payer as Hex,
    payee: opened.payee as Hex,
    operator: opened.operator as Hex,
    token: opened.token as Hex,
    salt: opened.salt as Hex,
    authorizedSigner: opened.authorizedSigner as Hex,
    expiringNonceHash: opened.expiringNonceHash as Hex,
  };

  const feed = rails.channels.watchCloseRequests();
  expect(await collect(feed)).toEqual([]);
  expect(await rails.channels.markCloseRequested(channelId)).toBe(false); // nothing requested yet
  const hash = await writeContract(client, {
    address: CHANNEL_RESERVE_ADDRESS,
    abi: CHANNEL_RESERVE_ABI,
    functionName: "requestClose",
    args: [descriptor],
    account,
    chain: client.chain,
  });
  expect((await waitForTransactionReceipt(client, { hash })).status).toBe("success");

  // The running feed sees it once; a feed started now (a restart) finds it again.
  expect((await collect(feed)).map((request) => request.channelId)).toEqual([channelId]);
  expect(await collect(feed)).toEqual([]);
  expect((await collect(rails.channels.watchCloseRequests())).map((request) => request.channelId)).toEqual([
    channelId,
  ]);

  expect(await rails.channels.markCloseRequested(channelId)).toBe(true);
  expect(await rails.channels.markCloseRequested(pad("0x1234"))).toBe(false); // unknown channel
  expect(await rails.channels.inspect(channelId)).toMatchObject({
    closeRequested: true,
    highestVoucherAmount: 2000n,
    settledOnChain: 0n,
    spent: 2000n,
  });
  const refused = await ask();
  expect(refused.status).toBe(402);
  expect(((await refused.json()) as { detail: string }).detail).toMatch(/pending close request/);

  const settlement = await rails.channels.settle(channelId);
  expect(settlement).toMatchObject({ channelId, amount: 2000n });
  expect((await events("Settled")).map((event) => event.transactionHash)).toEqual([settlement.txHash]);

  // Once the grace period has passed, the request can no longer be acted on: a new feed skips it.
  await anvilRpc(anvil.rpcUrl, "evm_increaseTime", [901]);
  await anvilRpc(anvil.rpcUrl, "evm_mine", []);
  expect(await collect(rails.channels.watchCloseRequests())).toEqual([]);
});

import { test } from "@app/testkit";
import type { Store } from "mppx/server";
import { afterAll, expect } from "vitest";
import { createMppClient, tip20Balance } from "../src/mpp/index.ts";
import { mppTestEnv } from "./mpp-support.ts";

const TOKEN_PRICE = 100n; // 0.0001 in atomic units

async function* words(count: number, signal: AbortSignal): AsyncGenerator<string> {
  for (let i = 0; i < count && !signal.aborted; i++) yield JSON.stringify({ i, token: `word${i}` });
}

const env = mppTestEnv({
  schema: "mpp_sse_test",
  ssePollingIntervalMs: 20,
  routes: (app, rails) => {
    app.post("/api/fortune/stream", async (c) => {
      // Management POSTs (voucher, top-up, close) carry no JSON body.
      const body = (await c.req.raw
        .clone()
        .json()
        .catch(() => ({}))) as { tokens?: number };
      const tokens = body.tokens ?? 10;
      const result = await rails.stream(c.req.raw, (signal) => words(Number(tokens), signal));
      return result.status === 402 ? result.challenge : result.response;
    });
  },
});
const setup = env.setup;
afterAll(env.stop);

/** A `fetch` that counts the `payment-need-voucher` events of SSE responses. */
function countingFetch(counter: { needVoucher: number }): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (!res.headers.get("content-type")?.startsWith("text/event-stream") || !res.body) return res;
    const decoder = new TextDecoder();
    let tail = "";
    const body = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          const text = tail + decoder.decode(chunk, { stream: true });
          const events = text.split("\n\n");
          tail = events.pop() ?? "";
          counter.needVoucher += events.filter((e) => e.startsWith("event: payment-need-voucher")).length;
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

const spentOf = async (store: Store.AtomicStore, channelId: string): Promise<bigint> =>
  ((await store.get(channelId.toLowerCase())) as { spent: bigint } | null)?.spent ?? 0n;

test("a stream of N tokens charges N × 0.0001, each token before it is delivered", async ({ db }) => {
  const { baseUrl, local, payee, payerKey, store } = await setup(db);
  const before = await tip20Balance(local.rpcUrl, local.currency, payee);
  const counter = { needVoucher: 0 };
  const client = createMppClient({
    rpcUrl: local.rpcUrl,
    chainId: local.chainId,
    privateKey: payerKey,
    fetch: countingFetch(counter),
  });
  const manager = client.session({ maxDeposit: "0.05" });
  const n = 25;
  const receipts: { spent: string; units?: number }[] = [];
  const t0 = performance.now();
  const stream = await manager.sse(`${baseUrl}/api/fortune/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tokens: n }),
    onReceipt: (receipt) => receipts.push(receipt),
  });
  let received = 0;
  for await (const data of stream) {
    expect(JSON.parse(data)).toEqual({ i: received, token: `word${received}` });
    received++;
    // The server committed this token's charge before sending it.
    expect(await spentOf(store, manager.channelId ?? "")).toBeGreaterThanOrEqual(
      BigInt(received) * TOKEN_PRICE,
    );
  }
  const streamMs = performance.now() - t0;
  expect(received).toBe(n);
  expect(receipts.at(-1)).toMatchObject({ spent: String(BigInt(n) * TOKEN_PRICE), units: n });
  expect(counter.needVoucher).toBeGreaterThan(0); // vouchers were requested in-band

  const closed = await manager.close();
  expect(closed?.spent).toBe(String(BigInt(n) * TOKEN_PRICE));
  expect((await tip20Balance(local.rpcUrl, local.currency, payee)) - before).toBe(BigInt(n) * TOKEN_PRICE);
  console.info(
    `sse: ${n} tokens in ${streamMs.toFixed(0)} ms (${(streamMs / n).toFixed(1)} ms/token incl. open), ${counter.needVoucher} need-voucher events`,
  );
});

test("with a deposit cap too small the stream stops at payment-need-voucher, only delivered tokens are paid", async ({
  db,
}) => {
  const { baseUrl, local, payee, payerKey, store } = await setup(db);
  const before = await tip20Balance(local.rpcUrl, local.currency, payee);
  const counter = { needVoucher: 0 };
  const client = createMppClient({
    rpcUrl: local.rpcUrl,
    chainId: local.chainId,
    privateKey: payerKey,
    fetch: countingFetch(counter),
  });
  const manager = client.session({ maxDeposit: "0.001" }); // 10 tokens
  const stream = await manager.sse(`${baseUrl}/api/fortune/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tokens: 50 }),
  });
  let received = 0;
  const failure = await (async () => {
    try {
      for await (const _ of stream) received++;
    } catch (error) {
      return error as Error;
    }
  })();
  expect(failure?.message).toMatch(/exceeds local maxDeposit/);
  expect(received).toBe(10);
  expect(counter.needVoucher).toBeGreaterThan(0);
  expect(await spentOf(store, manager.channelId ?? "")).toBe(10n * TOKEN_PRICE);

  const closed = await manager.close();
  expect(closed?.spent).toBe(String(10n * TOKEN_PRICE));
  expect((await tip20Balance(local.rpcUrl, local.currency, payee)) - before).toBe(10n * TOKEN_PRICE);
});

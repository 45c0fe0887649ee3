/**
 * MPP `tempo.session` over SSE on a real anvil (our TIP-1034 reserve + RPC shim), with the official
 * mppx `sessionManager`: each token is charged before it is sent.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Database } from "@app/db";
import { test } from "@app/testkit";
import { type ServerType, serve } from "@hono/node-server";
import { Hono } from "hono";
import type { Store } from "mppx/server";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, expect } from "vitest";
import { type AnvilHandle, startAnvil } from "../src/chain/anvil.ts";
import {
  createDbStore,
  createMppClient,
  createMppRails,
  fundPathUsd,
  type LocalTempo,
  mppStoreTableSql,
  startLocalTempo,
  tip20Balance,
} from "../src/mpp/index.ts";

const CACHE_DIR = join(fileURLToPath(new URL("..", import.meta.url)), ".data", "test-cache");
const TABLE = "mpp_sse_test.kv";
const TOKEN_PRICE = 100n; // 0.0001 in atomic units

interface Env {
  anvil: AnvilHandle;
  local: LocalTempo;
  server: ServerType;
  store: Store.AtomicStore;
  baseUrl: string;
  payee: Address;
  payerKey: Hex;
}
let env: Promise<Env> | undefined;

async function* words(count: number, signal: AbortSignal): AsyncGenerator<string> {
  for (let i = 0; i < count && !signal.aborted; i++) yield JSON.stringify({ i, token: `word${i}` });
}

async function start(db: Database): Promise<Env> {
  const anvil = await startAnvil();
  const local = await startLocalTempo({ anvilRpcUrl: anvil.rpcUrl, cacheDir: CACHE_DIR });
  await db.exec(`CREATE SCHEMA IF NOT EXISTS mpp_sse_test; ${mppStoreTableSql(TABLE)}`);
  const payee = privateKeyToAccount(generatePrivateKey()).address;
  const operatorKey = generatePrivateKey();
  const payerKey = generatePrivateKey();
  await fundPathUsd({ rpcUrl: local.rpcUrl, to: privateKeyToAccount(operatorKey).address, amount: "10" });
  await fundPathUsd({ rpcUrl: local.rpcUrl, to: privateKeyToAccount(payerKey).address, amount: "1" });
  const store = createDbStore({ db, table: TABLE });
  const rails = createMppRails({
    rpcUrl: local.rpcUrl,
    chainId: local.chainId,
    currency: local.currency,
    decimals: local.decimals,
    recipient: payee,
    operatorPrivateKey: operatorKey,
    secretKey: "test-secret-key-test-secret-key-0123456789",
    realm: "127.0.0.1",
    store,
    ssePollingIntervalMs: 20,
  });
  const app = new Hono();
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
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as { port: number };
  return { anvil, local, server, store, baseUrl: `http://127.0.0.1:${port}`, payee, payerKey };
}

const setup = (db: Database): Promise<Env> => {
  env ??= start(db);
  return env;
};

afterAll(async () => {
  if (!env) return;
  const { server, local, anvil } = await env;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await local.stop();
  await anvil.stop();
});

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

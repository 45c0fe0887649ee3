/**
 * MPP `tempo.session` in request mode on a real anvil (our TIP-1034 reserve + RPC shim), with the
 * official mppx `sessionManager`, on the database-backed store.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Database } from "@app/db";
import { test } from "@app/testkit";
import { type ServerType, serve } from "@hono/node-server";
import { Hono } from "hono";
import { Json } from "ox";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, expect } from "vitest";
import { type AnvilHandle, startAnvil } from "../src/chain/anvil.ts";
import {
  CHANNEL_RESERVE_ADDRESS,
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
const TABLE = "mpp_session_test.kv";

interface Env {
  anvil: AnvilHandle;
  local: LocalTempo;
  server: ServerType;
  baseUrl: string;
  payee: Address;
  payerKey: Hex;
}
let env: Promise<Env> | undefined;

async function start(db: Database): Promise<Env> {
  const anvil = await startAnvil();
  const local = await startLocalTempo({ anvilRpcUrl: anvil.rpcUrl, cacheDir: CACHE_DIR });
  await db.exec(`CREATE SCHEMA IF NOT EXISTS mpp_session_test; ${mppStoreTableSql(TABLE)}`);
  const payee = privateKeyToAccount(generatePrivateKey()).address;
  const operatorKey = generatePrivateKey();
  const payerKey = generatePrivateKey();
  await fundPathUsd({ rpcUrl: local.rpcUrl, to: privateKeyToAccount(operatorKey).address, amount: "10" });
  await fundPathUsd({ rpcUrl: local.rpcUrl, to: privateKeyToAccount(payerKey).address, amount: "1" });
  const rails = createMppRails({
    rpcUrl: local.rpcUrl,
    chainId: local.chainId,
    currency: local.currency,
    decimals: local.decimals,
    recipient: payee,
    operatorPrivateKey: operatorKey,
    secretKey: "test-secret-key-test-secret-key-0123456789",
    realm: "127.0.0.1",
    store: createDbStore({ db, table: TABLE }),
  });
  const app = new Hono();
  app.post("/api/fortune/llm", async (c) => {
    const result = await rails.session(c.req.raw);
    if (result.status === 402) return result.challenge;
    return result.withReceipt(Response.json({ fortune: "Metered wisdom." }));
  });
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as { port: number };
  return { anvil, local, server, baseUrl: `http://127.0.0.1:${port}`, payee, payerKey };
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

test("an unpaid request gets a tempo session challenge", async ({ db }) => {
  const { baseUrl } = await setup(db);
  const res = await fetch(`${baseUrl}/api/fortune/llm`, { method: "POST", body: "{}" });
  expect(res.status).toBe(402);
  expect(res.headers.get("www-authenticate")).toMatch(/^Payment .*method="tempo".*intent="session"/);
});

test("several requests through one channel (with a top-up): the payee gets exactly units × 0.001", async ({
  db,
}) => {
  const { baseUrl, local, payee, payerKey } = await setup(db);
  const payer = privateKeyToAccount(payerKey).address;
  const balances = async () => ({
    payee: await tip20Balance(local.rpcUrl, local.currency, payee),
    payer: await tip20Balance(local.rpcUrl, local.currency, payer),
    reserve: await tip20Balance(local.rpcUrl, local.currency, CHANNEL_RESERVE_ADDRESS),
  });
  const before = await balances();
  const client = createMppClient({ rpcUrl: local.rpcUrl, chainId: local.chainId, privateKey: payerKey });
  const manager = client.session({ maxDeposit: "0.02" });

  const units = 12; // the 11th request needs more than the opening deposit of 0.01: top-up
  const timings: number[] = [];
  for (let i = 1; i <= units; i++) {
    const t0 = performance.now();
    const res = await manager.fetch(`${baseUrl}/api/fortune/llm`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prompt: `question ${i}` }),
    });
    timings.push(performance.now() - t0);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ fortune: "Metered wisdom." });
    expect(res.receipt?.spent).toBe(String(i * 1000));
  }
  const channelId = manager.channelId;
  expect(channelId).toBeTruthy();
  // While open, the deposits (0.01 + 0.01 top-up) sit in the reserve.
  expect((await balances()).reserve - before.reserve).toBe(20_000n);

  const t0 = performance.now();
  const closed = await manager.close();
  const closeMs = performance.now() - t0;
  expect(closed?.spent).toBe(String(units * 1000));
  console.info(
    `session timings: open ${timings[0]?.toFixed(0)} ms, voucher ${median(timings.slice(1)).toFixed(0)} ms (median), close ${closeMs.toFixed(0)} ms`,
  );

  const after = await balances();
  expect(after.payee - before.payee).toBe(BigInt(units) * 1000n);
  expect(after.reserve).toBe(before.reserve);
  expect(before.payer - after.payer).toBeGreaterThanOrEqual(BigInt(units) * 1000n); // plus open fees

  const rows = await db.query<{ key: string; value: string }>(
    `SELECT key, value FROM ${TABLE} WHERE key = $1`,
    [channelId?.toLowerCase()],
  );
  expect(rows).toHaveLength(1);
  const state = Json.parse(rows[0]?.value ?? "null") as { spent: bigint; units: number; finalized: boolean };
  expect(state).toMatchObject({ spent: BigInt(units) * 1000n, units, finalized: true });
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * Shared setup of the MPP test files: a real anvil with the channel reserve and its
 * RPC shim, the store's table in the test database, a funded operator and payer,
 * the MPP rails and a loopback Hono server with the file's routes.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Database } from "@app/db";
import {
  type AnvilHandle,
  fundPathUsd,
  type LocalTempo,
  startAnvil,
  startLocalTempo,
} from "@app/local-chain";
import { type ServerType, serve } from "@hono/node-server";
import { Hono } from "hono";
import type { Store } from "mppx";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createDbStore, createMppRails, type MppRails, mppStoreTableSql } from "../src/mpp/index.ts";

const CACHE_DIR = join(fileURLToPath(new URL("..", import.meta.url)), ".data", "test-cache");

export interface MppTestEnv {
  anvil: AnvilHandle;
  local: LocalTempo;
  rails: MppRails;
  store: Store.AtomicStore;
  server: ServerType;
  baseUrl: string;
  payee: Address;
  payerKey: Hex;
}

export interface MppTestOptions {
  /** The test database schema for this file's store table. */
  schema: string;
  /** Registers the file's routes on the server. */
  routes(app: Hono, rails: MppRails): void;
  ssePollingIntervalMs?: number;
}

async function start(db: Database, options: MppTestOptions): Promise<MppTestEnv> {
  const anvil = await startAnvil();
  const local = await startLocalTempo({ anvilRpcUrl: anvil.rpcUrl, cacheDir: CACHE_DIR });
  const table = `${options.schema}.kv`;
  await db.exec(`CREATE SCHEMA IF NOT EXISTS ${options.schema}; ${mppStoreTableSql(table)}`);
  const payee = privateKeyToAccount(generatePrivateKey()).address;
  const operatorKey = generatePrivateKey();
  const payerKey = generatePrivateKey();
  await fundPathUsd({ rpcUrl: local.rpcUrl, to: privateKeyToAccount(operatorKey).address, amount: "10" });
  await fundPathUsd({ rpcUrl: local.rpcUrl, to: privateKeyToAccount(payerKey).address, amount: "1" });
  const store = createDbStore({ db, table });
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
    ssePollingIntervalMs: options.ssePollingIntervalMs,
  });
  const app = new Hono();
  options.routes(app, rails);
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as { port: number };
  return { anvil, local, rails, store, server, baseUrl: `http://127.0.0.1:${port}`, payee, payerKey };
}

/** The file's environment, started on first use and stopped by `stop` (call it in `afterAll`). */
export function mppTestEnv(options: MppTestOptions): {
  setup(db: Database): Promise<MppTestEnv>;
  stop(): Promise<void>;
} {
  let env: Promise<MppTestEnv> | undefined;
  return {
    setup(db) {
      env ??= start(db, options);
      return env;
    },
    async stop() {
      if (!env) return;
      const { server, local, anvil } = await env;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await local.stop();
      await anvil.stop();
    },
  };
}

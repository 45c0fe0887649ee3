import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningServer, serveApp } from "@app/core";
import type { Database } from "@app/db";
import { fundPathUsd, type LocalChain } from "@app/local-chain";
import { createMppClient, type MppClient } from "@app/payments";
import { answerSignInChallenge, localPayerClient, serviceChainOf } from "@app/payments/testing";
import { migrateService } from "@app/runtime";
import { silentLogger } from "@app/testkit";
import type { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { gatewayLocalChain } from "../local/index.ts";
import { createApp } from "../src/app.ts";
import { loadGatewayConfig } from "../src/config.ts";
import { startGatewayRails } from "../src/rails.ts";
import { buildSelfServeDeps, type SelfServeDeps } from "../src/self-serve/deps.ts";
import { CreditReconciler } from "../src/self-serve/reconciler.ts";
import { buildGatewayDeps, configuredRegistry, gatewayService } from "../src/service.ts";
import { createUndiciUpstreamClient } from "../src/upstream/undici-client.ts";

/** Stands between the gateway and its facilitator's settle: runs checks first, or refuses instead. */
export type SettleGate = (
  settle: () => Promise<SettleResponse>,
  payment: { payload: PaymentPayload; requirements: PaymentRequirements },
) => Promise<SettleResponse>;

/** The gateway with self-serve credit on a real local chain and database, served on a loopback port. */
export type SelfServeGateway = {
  url: string;
  db: Database;
  /** LocalUSD, x402's token: fund wallets, read balances. */
  chain: LocalChain;
  /** The MPP side of the chain: the reserve shim's URL and pathUSD. */
  tempo: { rpcUrl: string; chainId: number; currency: `0x${string}` };
  selfServe: SelfServeDeps;
  reconciler: CreditReconciler;
  /** What stands before each x402 settlement (none: settle as it comes). */
  settleGate?: SettleGate;
  /** The official x402 client (`exact`, LocalUSD allowed) for a wallet. */
  x402Client(privateKey: Hex): x402Client;
  /** The official x402 fetch client for a wallet; `inner` sees each request it sends. */
  payingFetch(privateKey: Hex, inner?: typeof fetch): typeof fetch;
  /** The official MPP client for a wallet. */
  mppClient(privateKey: Hex): MppClient;
  /** LocalUSD (x402) and pathUSD (MPP, and its fees) for a wallet. */
  fundWallet(privateKey: Hex, usd?: string): Promise<void>;
  /** Signs in: asks `path` for a challenge (a 402) and answers it with the official SIWX helpers. */
  signIn(privateKey: Hex, path: string, init?: RequestInit): Promise<string>;
  /** Signs in with the wallet and opens its account: the 201's `{account, key}` (the key shown once). */
  openAccount(privateKey: Hex): Promise<OpenedAccount>;
  stop(): Promise<void>;
};

/** What `POST /v1/accounts` answers a wallet that opens its account (the parts tests read). */
export type OpenedAccount = {
  account: { id: string; wallet: string };
  key: { id: string; key: string };
};

/**
 * Starts the gateway as `npm start` runs it (its local chain, payment rails, self-serve routes),
 * every port free, with a seam before x402 settlements for tests of what happens around them.
 */
export async function startSelfServeGateway(
  db: Database,
  env: Record<string, string> = {},
): Promise<SelfServeGateway> {
  const dataDir = await mkdtemp(join(tmpdir(), "gateway-self-serve-"));
  const config = loadGatewayConfig({ GATEWAY_PORT: "0", GATEWAY_CHAIN_PORT: "0", DATA_DIR: dataDir, ...env });
  await migrateService(gatewayService, db);
  const logger = silentLogger();
  const rails = await startGatewayRails(config, db, logger, gatewayLocalChain());
  if (!rails) throw new Error("the gateway started without payment rails");
  const upstream = createUndiciUpstreamClient(config.upstreamLimits);
  let server: RunningServer | undefined;
  try {
    const harness = {} as SelfServeGateway;
    const settle = rails.x402.settle.bind(rails.x402);
    rails.x402.settle = (payload, requirements, atomic) => {
      const proceed = () => settle(payload, requirements, atomic);
      return harness.settleGate ? harness.settleGate(proceed, { payload, requirements }) : proceed();
    };
    const deps = buildGatewayDeps(db, logger, {
      registry: configuredRegistry(config),
      upstream,
      runsPerMinute: config.runsPerMinute,
    });
    let origin = new URL("http://127.0.0.1");
    const selfServe = buildSelfServeDeps(db, logger, {
      rails,
      accounts: deps.accounts,
      clock: deps.clock,
      origin: () => origin,
    });
    server = await serveApp(createApp(deps, selfServe) as never, { host: "127.0.0.1", port: 0 });
    origin = new URL(server.url);
    const { chain, tempo } = await serviceChainOf(rails.credentials, dataDir);
    const url = server.url;
    const running = server;
    const makeClient = (privateKey: Hex) => localPayerClient(chain, privateKey, ["exact"]);
    return Object.assign(harness, {
      url,
      db,
      chain,
      tempo,
      selfServe,
      reconciler: new CreditReconciler({
        db,
        x402: rails.x402,
        mpp: rails.mpp,
        payments: selfServe.payments,
        creditKeys: selfServe.purchase.deps.creditKeys,
        clock: deps.clock,
        logger,
      }),
      x402Client: makeClient,
      payingFetch: (privateKey: Hex, inner: typeof fetch = fetch) =>
        wrapFetchWithPayment(inner, makeClient(privateKey)),
      mppClient: (privateKey: Hex) =>
        createMppClient({ rpcUrl: tempo.rpcUrl, chainId: tempo.chainId, privateKey }),
      async fundWallet(privateKey: Hex, usd = "10") {
        const address = privateKeyToAccount(privateKey).address;
        await chain.fund(address, usd);
        await fundPathUsd({ rpcUrl: tempo.rpcUrl, to: address, amount: usd });
      },
      async signIn(privateKey: Hex, path: string, init: RequestInit = {}) {
        const challenge = await fetch(`${url}${path}`, { method: "POST", ...init });
        return answerSignInChallenge(challenge, privateKey);
      },
      async openAccount(privateKey: Hex) {
        const header = await harness.signIn(privateKey, "/v1/accounts");
        const opened = await fetch(`${url}/v1/accounts`, {
          method: "POST",
          headers: { "sign-in-with-x": header },
        });
        if (opened.status !== 201) throw new Error(`expected the account opened (201), got ${opened.status}`);
        return (await opened.json()) as OpenedAccount;
      },
      async stop() {
        await running.close();
        await upstream.close();
        await deps.usage.flush();
        await rails.stop();
        await rm(dataDir, { recursive: true, force: true });
      },
    });
  } catch (error) {
    await server?.close();
    await upstream.close();
    await rails.stop();
    throw error;
  }
}

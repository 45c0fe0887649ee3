import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningServer, serveApp } from "@app/core";
import type { Database } from "@app/db";
import { LOCAL_DEV_ACCOUNTS, LOCAL_DEV_MNEMONIC, type LocalChain } from "@app/local-chain";
import { answerSignInChallenge, localPayerClient, serviceChainOf } from "@app/payments/testing";
import { migrateService } from "@app/runtime";
import { silentLogger } from "@app/testkit";
import type { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { wrapFetchWithPayment } from "@x402/fetch";
import { type Hex, toHex } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { fortuneLocalService } from "../local/index.ts";
import { loadFortuneConfig } from "../src/config.ts";
import { PaymentLedger } from "../src/store/ledger.ts";

export const PAYEE = LOCAL_DEV_ACCOUNTS.payee.address;

/** The fortune service on a real local chain and a real database, served on a loopback port. */
export type FortuneHarness = {
  url: string;
  chain: LocalChain;
  /** The Tempo side of the local chain (MPP): the reserve shim's URL and pathUSD. */
  tempo: { rpcUrl: string; chainId: number; currency: `0x${string}` };
  db: Database;
  ledger: PaymentLedger;
  /** The official x402 fetch client for a wallet (exact and upto, LocalUSD allowed). */
  payingFetch(privateKey: Hex): typeof fetch;
  x402Client(privateKey: Hex): x402Client;
  /** A funded wallet with Permit2 approved (for upto). */
  fundedWallet(key: Hex, usd?: string): Promise<void>;
  /** Signs in: asks the route for a challenge and answers it with the official SIWX helpers. */
  signIn(privateKey: Hex, path: string, init?: RequestInit): Promise<string>;
  stop(): Promise<void>;
};

export async function startFortune(db: Database, env: Record<string, string> = {}): Promise<FortuneHarness> {
  const dataDir = await mkdtemp(join(tmpdir(), "fortune-test-"));
  const config = loadFortuneConfig({ FORTUNE_PORT: "0", FORTUNE_CHAIN_PORT: "0", DATA_DIR: dataDir, ...env });
  await migrateService(fortuneLocalService, db);
  const built = await fortuneLocalService.build({ config, db, logger: silentLogger() });
  let server: RunningServer | undefined;
  try {
    server = await serveApp(built.app as never, { host: "127.0.0.1", port: 0 });
    built.onListening?.(server.url);
    const { chain, tempo } = await serviceChainOf(built.credentials, dataDir);
    const url = server.url;
    const makeClient = (privateKey: Hex) => localPayerClient(chain, privateKey, ["exact", "upto"]);
    const running = server;
    return {
      url,
      chain,
      tempo,
      db,
      ledger: new PaymentLedger(db),
      x402Client: makeClient,
      payingFetch: (privateKey) => wrapFetchWithPayment(fetch, makeClient(privateKey)),
      async fundedWallet(key, usd = "10") {
        const address = privateKeyToAccount(key).address;
        await chain.fund(address, usd);
        await chain.approvePermit2(key);
      },
      async signIn(privateKey, path, init = {}) {
        const challenge = await fetch(`${url}${path}`, {
          headers: { "content-type": "application/json" },
          ...init,
        });
        return answerSignInChallenge(challenge, privateKey);
      },
      async stop() {
        await running.close();
        await built.stop?.();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await server?.close();
    await built.stop?.();
    throw error;
  }
}

export function settlementOf(res: Response): {
  success: boolean;
  transaction: string;
  amount?: string;
  payer?: string;
} {
  const header = res.headers.get("payment-response");
  if (!header) throw new Error(`no PAYMENT-RESPONSE header (status ${res.status})`);
  return decodePaymentResponseHeader(header);
}

export function challengeOf(res: Response): PaymentRequired {
  const header = res.headers.get("payment-required");
  if (!header) throw new Error(`no PAYMENT-REQUIRED header (status ${res.status})`);
  return decodePaymentRequiredHeader(header);
}

export const KEYS = {
  payer: LOCAL_DEV_ACCOUNTS.payer.privateKey,
  other: LOCAL_DEV_ACCOUNTS.otherPayer.privateKey,
};

/**
 * Another of the local chain's prefunded accounts (indices 7 and 8 are used by no
 * role). On anvil's Tempo mode gas is paid in pathUSD, which these hold, so they
 * can send their own Permit2 approval.
 */
export function spareAccount(index: 7 | 8): Hex {
  const key = mnemonicToAccount(LOCAL_DEV_MNEMONIC, { addressIndex: index }).getHdKey().privateKey;
  if (!key) throw new Error("no private key derived");
  return toHex(key);
}

/**
 * `DATA_DIR/local.json`, written by `npm start`: the fortune service's URL, the demo
 * wallet and the local chain's coordinates.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Address, Hex } from "viem";

/** Where the CLI pays and with what, taken from `local.json`. */
export type PayTarget = {
  /** The fortune service's base URL, e.g. `http://127.0.0.1:3001`. */
  fortuneUrl: string;
  wallet: { address: Address; privateKey: Hex };
  chain: {
    /** The EVM JSON-RPC URL the x402 rail settles on. */
    rpcUrl: string;
    /** The Tempo JSON-RPC URL (the reserve shim locally) the MPP rails use. */
    tempoRpcUrl: string;
    chainId: number;
    /** The token x402 payments are made in (LocalUSD). */
    x402Asset: Address;
    /** The token MPP payments are made in (pathUSD). */
    mppCurrency: Address;
  };
};

/** A wallet on the local chain: what pays, and where (`local.json`'s demo wallet and chain). */
export type PayingWallet = Pick<PayTarget, "wallet" | "chain">;

/** Where the `gateway` commands go and with what wallet, taken from `local.json`. */
export type GatewayTarget = PayingWallet & {
  /** The gateway's base URL, e.g. `http://127.0.0.1:3003`. */
  gatewayUrl: string;
};

/** `local.json` is missing or unusable: the message says what to do (exit code 2). */
export class ManifestError extends Error {
  override readonly name = "ManifestError";
}

/** The manifest's path under a data folder. */
export const manifestPath = (dataDir: string): string => join(dataDir, "local.json");

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isHex = (value: unknown, bytes?: number): value is Hex =>
  typeof value === "string" &&
  (bytes === undefined ? /^0x[0-9a-fA-F]+$/ : new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`)).test(value);

/**
 * Reads and checks `DATA_DIR/local.json`. Throws {@link ManifestError} when it is
 * missing (run `npm start` first) or lacks the fortune service or the demo wallet.
 */
export async function readManifest(dataDir: string): Promise<PayTarget> {
  const path = manifestPath(dataDir);
  return parseManifest(await readManifestJson(path), path);
}

/** Reads `DATA_DIR/local.json` for the `gateway` commands: the gateway's URL, the demo wallet and the chain. */
export async function readGatewayManifest(dataDir: string): Promise<GatewayTarget> {
  const path = manifestPath(dataDir);
  const manifest = await readManifestJson(path);
  const root = isRecord(manifest) ? manifest : {};
  const services = isRecord(root.services) ? root.services : {};
  const gateway = isRecord(services.gateway) ? services.gateway : {};
  if (typeof gateway.url !== "string" || !URL.canParse(gateway.url)) {
    throw new ManifestError(`${path} names no gateway URL: is \`npm start\` running the gateway?`);
  }
  return { gatewayUrl: gateway.url.replace(/\/+$/, ""), ...walletOf(root, path) };
}

async function readManifestJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new ManifestError(
        `No ${path}: run \`npm start\` first (in another terminal); it writes the service URLs and the demo wallet there.`,
      );
    }
    throw new ManifestError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ManifestError(`${path} is not valid JSON: restart \`npm start\` to rewrite it.`);
  }
}

/** Checks the parsed manifest's shape; `path` names it in messages. */
export function parseManifest(manifest: unknown, path: string): PayTarget {
  const root = isRecord(manifest) ? manifest : {};
  const services = isRecord(root.services) ? root.services : {};
  const fortune = isRecord(services.fortune) ? services.fortune : {};
  if (typeof fortune.url !== "string" || !URL.canParse(fortune.url)) {
    throw new ManifestError(
      `${path} names no fortune service URL: is \`npm start\` running the fortune service?`,
    );
  }
  return { fortuneUrl: fortune.url.replace(/\/+$/, ""), ...walletOf(root, path) };
}

/** The demo wallet and the local chain's coordinates of a parsed manifest. */
function walletOf(root: Record<string, unknown>, path: string): PayingWallet {
  const credentials = isRecord(root.credentials) ? root.credentials : {};
  const wallet = isRecord(credentials.demoWallet) ? credentials.demoWallet : {};
  const chain = isRecord(credentials.chain) ? credentials.chain : {};
  const { address, privateKey } = wallet;
  const { rpcUrl, tempoRpcUrl, chainId, x402Asset, mppCurrency } = chain;
  if (
    !isHex(address, 20) ||
    !isHex(privateKey, 32) ||
    typeof rpcUrl !== "string" ||
    typeof tempoRpcUrl !== "string" ||
    typeof chainId !== "number" ||
    !isHex(x402Asset, 20) ||
    !isHex(mppCurrency, 20)
  ) {
    throw new ManifestError(
      `${path} has no demo wallet or local chain: the CLI pays on the local chain that \`npm start\` runs (not in hosted mode).`,
    );
  }
  return {
    wallet: { address, privateKey },
    chain: { rpcUrl, tempoRpcUrl, chainId, x402Asset, mppCurrency },
  };
}

/**
 * The local TIP-1034 channel reserve: our Solidity stand-in (`contracts/TIP20ChannelReserve.sol`),
 * compiled with solc-js (disk-cached) and installed with `anvil_setCode` at the canonical reserve
 * address. LOCAL CHAINS ONLY: Tempo has the native precompile.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { CHANNEL_RESERVE_ADDRESS, PATH_USD_ADDRESS, SIGNATURE_VERIFIER_ADDRESS } from "@app/payments";
import { type Address, createPublicClient, erc20Abi, type Hex, http, numberToHex } from "viem";
import { CONTRACTS_DIR } from "../contracts.ts";
import { tip20AllowanceSlot } from "./tx-context.ts";

const SOURCE_FILE = "TIP20ChannelReserve.sol";
const CONTRACT = "TIP20ChannelReserve";
/** The same compiler settings as the package's other contracts (`src/contracts.ts`). */
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  metadata: { bytecodeHash: "none" },
  outputSelection: { "*": { "*": ["evm.deployedBytecode.object"] } },
} as const;

/** The compiled reserve. */
export interface ChannelReserveArtifact {
  readonly compilerVersion: string;
  /** sha256 of source + compiler version + settings. */
  readonly cacheKey: string;
  /** Runtime code, as installed with `anvil_setCode`. */
  readonly deployedBytecode: Hex;
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { evm: { deployedBytecode: { object: string } } }>>;
}

/**
 * Compiles `contracts/TIP20ChannelReserve.sol`. With `cacheDir`, the artifact is cached in
 * `<cacheDir>/channel-reserve-<key>.json` keyed by source, solc version and settings, so later starts
 * do not load solc.
 */
export async function compileChannelReserve(
  options: { cacheDir?: string } = {},
): Promise<ChannelReserveArtifact> {
  const require = createRequire(import.meta.url);
  const source = readFileSync(join(CONTRACTS_DIR, SOURCE_FILE), "utf8");
  const compilerVersion = (require("solc/package.json") as { version: string }).version;
  const cacheKey = createHash("sha256")
    .update(JSON.stringify({ compilerVersion, settings: SETTINGS, source }))
    .digest("hex");
  const cacheFile = options.cacheDir
    ? join(options.cacheDir, `channel-reserve-${cacheKey.slice(0, 16)}.json`)
    : undefined;
  if (cacheFile) {
    try {
      const cached = JSON.parse(readFileSync(cacheFile, "utf8")) as ChannelReserveArtifact;
      if (cached.cacheKey === cacheKey) return cached;
    } catch {
      // no usable cache: compile
    }
  }

  const solc = (await import("solc")).default;
  const input = { language: "Solidity", sources: { [SOURCE_FILE]: { content: source } }, settings: SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join("\n")}`);
  const code = output.contracts?.[SOURCE_FILE]?.[CONTRACT]?.evm.deployedBytecode.object;
  if (!code) throw new Error(`solc output has no ${CONTRACT}`);

  const artifact: ChannelReserveArtifact = { compilerVersion, cacheKey, deployedBytecode: `0x${code}` };
  if (cacheFile) {
    mkdirSync(dirname(cacheFile), { recursive: true });
    const tmp = `${cacheFile}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, JSON.stringify(artifact));
    renameSync(tmp, cacheFile); // atomic: concurrent compilers never see a half-written file
  }
  return artifact;
}

/** Options for {@link installChannelReserve}. */
export interface InstallChannelReserveOptions {
  /** anvil's own JSON-RPC URL (`anvil_*` methods), not the shim. */
  anvilRpcUrl: string;
  /** Where the compiled artifact is cached (e.g. `<app>/.data/contracts`). */
  cacheDir?: string;
  /** Token whose TIP-20 storage layout the shim relies on (default pathUSD). */
  token?: Address;
}

/**
 * Installs the reserve's runtime code at {@link CHANNEL_RESERVE_ADDRESS} (only when the code there
 * differs, so it is idempotent on a chain restored from a state file) and checks what the RPC shim
 * relies on: the SignatureVerifier precompile exists (needs `--hardfork T4`) and the TIP-20
 * allowance mapping sits at the expected storage slot. Returns true when code was written now.
 */
export async function installChannelReserve(options: InstallChannelReserveOptions): Promise<boolean> {
  const client = createPublicClient({ transport: http(options.anvilRpcUrl) });
  const rpc = (method: string, params: unknown[]): Promise<unknown> =>
    client.request({ method, params } as never);
  const token = options.token ?? PATH_USD_ADDRESS;

  const verifier = await client.getCode({ address: SIGNATURE_VERIFIER_ADDRESS });
  if (!verifier || verifier === "0x") {
    throw new Error(
      `no SignatureVerifier at ${SIGNATURE_VERIFIER_ADDRESS}: start anvil with --network tempo --hardfork T4`,
    );
  }

  const { deployedBytecode } = await compileChannelReserve({ cacheDir: options.cacheDir });
  const current = await client.getCode({ address: CHANNEL_RESERVE_ADDRESS });
  const installNow = current?.toLowerCase() !== deployedBytecode.toLowerCase();
  if (installNow) await rpc("anvil_setCode", [CHANNEL_RESERVE_ADDRESS, deployedBytecode]);

  // The shim emulates TIP-20 implicit approval by writing the allowance slot: check the layout.
  const probeOwner: Address = "0x000000000000000000000000000000000000bEEF";
  const slot = tip20AllowanceSlot(probeOwner, CHANNEL_RESERVE_ADDRESS);
  await rpc("anvil_setStorageAt", [token, slot, numberToHex(123_456n, { size: 32 })]);
  const seen = await client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: "allowance",
    args: [probeOwner, CHANNEL_RESERVE_ADDRESS],
  });
  await rpc("anvil_setStorageAt", [token, slot, numberToHex(0n, { size: 32 })]);
  if (seen !== 123_456n) {
    throw new Error(`unexpected TIP-20 allowance storage layout on ${token} (probe read ${seen})`);
  }
  return installNow;
}

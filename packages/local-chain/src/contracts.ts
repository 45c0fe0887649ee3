/**
 * Compiles the package's own Solidity contracts (`packages/local-chain/contracts/*.sol`) with solc-js,
 * caching the artifacts on disk.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Abi, Hex } from "viem";

/** Names of the contracts this package builds. */
export type LocalContractName = "LocalUSD" | "LocalExactPermit2Proxy" | "LocalUptoPermit2Proxy";

/** ABI and bytecode of one compiled contract. */
export interface ContractArtifact {
  readonly abi: Abi;
  /** Creation code (constructor + runtime). */
  readonly bytecode: Hex;
  /** Runtime code (what `anvil_setCode` installs). */
  readonly deployedBytecode: Hex;
}

/** Output of {@link compileContracts}. */
export interface CompiledContracts {
  readonly compilerVersion: string;
  /** sha256 of sources + compiler version + settings: the cache key. */
  readonly cacheKey: string;
  /** True if read from the on-disk cache rather than compiled now. */
  readonly fromCache: boolean;
  readonly contracts: Readonly<Record<LocalContractName, ContractArtifact>>;
}

const CONTRACT_NAMES: readonly LocalContractName[] = [
  "LocalUSD",
  "LocalExactPermit2Proxy",
  "LocalUptoPermit2Proxy",
];
/** Contracts installed with anvil_setCode: they must not rely on immutables or constructor state. */
const SET_CODE_CONTRACTS: readonly LocalContractName[] = ["LocalExactPermit2Proxy", "LocalUptoPermit2Proxy"];

const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  // No metadata hash: bytecode (and so LocalUSD's CREATE2 address) changes only when code changes.
  metadata: { bytecodeHash: "none" },
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode"] } },
} as const;

const require = createRequire(import.meta.url);

/** Directory holding the `.sol` sources. */
export const CONTRACTS_DIR: string = join(dirname(fileURLToPath(import.meta.url)), "..", "contracts");

/**
 * The files this module compiles (other `.sol` files in the folder belong to other modules and are
 * neither compiled nor hashed here).
 */
const SOURCE_FILES = [
  "ISignatureTransfer.sol",
  "LocalExactPermit2Proxy.sol",
  "LocalUSD.sol",
  "LocalUptoPermit2Proxy.sol",
] as const;

function readSources(): Record<string, string> {
  const sources: Record<string, string> = {};
  for (const file of SOURCE_FILES) sources[file] = readFileSync(join(CONTRACTS_DIR, file), "utf8");
  return sources;
}

function packageVersion(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version;
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<
    string,
    Record<
      string,
      {
        abi: Abi;
        evm: {
          bytecode: { object: string };
          deployedBytecode: { object: string; immutableReferences?: Record<string, unknown> };
        };
      }
    >
  >;
}

/**
 * Compiles LocalUSD and the two Permit2 proxies. With `cacheDir`, artifacts are stored in
 * `<cacheDir>/contracts-<key>.json` keyed by a hash of the sources, the solc and
 * `@openzeppelin/contracts` versions and the settings, so a second start does not load solc at all.
 * OpenZeppelin imports are resolved from node_modules.
 */
export async function compileContracts(options: { cacheDir?: string } = {}): Promise<CompiledContracts> {
  const sources = readSources();
  const compilerVersion = packageVersion("solc");
  const cacheKey = createHash("sha256")
    .update(
      JSON.stringify({
        compilerVersion,
        openzeppelin: packageVersion("@openzeppelin/contracts"),
        settings: SETTINGS,
        sources,
      }),
    )
    .digest("hex");

  const cacheFile = options.cacheDir
    ? join(options.cacheDir, `contracts-${cacheKey.slice(0, 16)}.json`)
    : undefined;
  if (cacheFile) {
    try {
      const cached = JSON.parse(readFileSync(cacheFile, "utf8")) as Omit<CompiledContracts, "fromCache">;
      if (cached.cacheKey === cacheKey) return { ...cached, fromCache: true };
    } catch {
      // no usable cache: compile
    }
  }

  const solc = (await import("solc")).default;
  const ozRoot = dirname(require.resolve("@openzeppelin/contracts/package.json"));
  const findImports = (path: string): { contents: string } | { error: string } => {
    try {
      if (path.startsWith("@openzeppelin/contracts/")) {
        return {
          contents: readFileSync(join(ozRoot, path.slice("@openzeppelin/contracts/".length)), "utf8"),
        };
      }
      const local = sources[path];
      if (local !== undefined) return { contents: local };
      return { error: `import not found: ${path}` };
    } catch (err) {
      return { error: `import not found: ${path} (${(err as Error).message})` };
    }
  };
  const input = {
    language: "Solidity",
    sources: Object.fromEntries(Object.entries(sources).map(([file, content]) => [file, { content }])),
    settings: SETTINGS,
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join("\n")}`);
  }

  const contracts = {} as Record<LocalContractName, ContractArtifact>;
  for (const name of CONTRACT_NAMES) {
    const out = output.contracts[`${name}.sol`]?.[name];
    if (!out) throw new Error(`solc output has no ${name}`);
    if (
      SET_CODE_CONTRACTS.includes(name) &&
      Object.keys(out.evm.deployedBytecode.immutableReferences ?? {}).length
    ) {
      throw new Error(
        `${name} uses immutables; it is installed with anvil_setCode and may only use constants`,
      );
    }
    contracts[name] = {
      abi: out.abi,
      bytecode: `0x${out.evm.bytecode.object}`,
      deployedBytecode: `0x${out.evm.deployedBytecode.object}`,
    };
  }

  const result = { compilerVersion: String(solc.version()), cacheKey, contracts };
  if (cacheFile) {
    mkdirSync(dirname(cacheFile), { recursive: true });
    const tmp = `${cacheFile}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, JSON.stringify(result));
    renameSync(tmp, cacheFile); // atomic: concurrent compilers never see a half-written file
  }
  return { ...result, fromCache: false };
}

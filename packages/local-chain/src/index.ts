/**
 * `@app/local-chain`: local-only payment tooling. anvil from npm, our own contracts (compiled with
 * solc-js and deployed or installed on anvil), the TIP-1034 channel reserve and the RPC shim that
 * makes anvil look like Tempo to MPP, and anvil's well-known dev accounts.
 *
 * LOCAL CHAINS ONLY. Production code (`services/<name>/src`, `packages/<name>/src`) never imports this
 * package (a test in `test/boundary.test.ts` checks it); the launcher (`apps/local`), the `pay`
 * CLI, tests, test harnesses and the bench do.
 *
 * @module
 */
export { type AnvilHandle, resolveAnvilBinary, type StartAnvilOptions, startAnvil } from "./anvil.ts";
export {
  CONTRACTS_DIR,
  type CompiledContracts,
  type ContractArtifact,
  compileContracts,
  type LocalContractName,
} from "./contracts.ts";
export { LOCAL_DEV_ACCOUNTS, LOCAL_DEV_MNEMONIC, type LocalDevAccount } from "./dev-accounts.ts";
export {
  type BootstrapLocalChainOptions,
  bootstrapLocalChain,
  LOCAL_USD_SALT,
  type LocalAsset,
  type LocalChain,
  localChainDefinition,
} from "./local-chain.ts";
export {
  LOCAL_MPP_SECRET,
  type ProvideLocalChainOptions,
  provideLocalChain,
  sharedLocalChain,
} from "./provided.ts";
export { type RunningLocalChain, type StartLocalChainOptions, startLocalChain } from "./start.ts";
export {
  type FundPathUsdOptions,
  fundPathUsd,
  type LocalTempo,
  type StartLocalTempoOptions,
  startLocalTempo,
} from "./tempo/local.ts";
export {
  type ChannelReserveArtifact,
  compileChannelReserve,
  type InstallChannelReserveOptions,
  installChannelReserve,
} from "./tempo/reserve.ts";
export {
  startTempoShim,
  type TempoShim,
  type TempoShimOptions,
  type TempoShimStats,
} from "./tempo/rpc-shim.ts";

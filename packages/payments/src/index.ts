/**
 * `@app/payments`: the local EVM chain (anvil), the x402 rail and the MPP rails.
 *
 * @module
 */
export {
  CREATE2_DEPLOYER_ADDRESS,
  LOCAL_USD_SALT,
  MULTICALL3_ADDRESS,
  PATH_USD_ADDRESS,
  PERMIT2_ADDRESS,
  X402_EXACT_PERMIT2_PROXY_ADDRESS,
  X402_UPTO_PERMIT2_PROXY_ADDRESS,
} from "./chain/addresses.ts";
export { type AnvilHandle, resolveAnvilBinary, type StartAnvilOptions, startAnvil } from "./chain/anvil.ts";
export {
  CONTRACTS_DIR,
  type CompiledContracts,
  type ContractArtifact,
  compileContracts,
  type LocalContractName,
} from "./chain/contracts.ts";
export {
  type BootstrapLocalChainOptions,
  bootstrapLocalChain,
  type LocalAsset,
  type LocalChain,
  localChainDefinition,
} from "./chain/local-chain.ts";
export { isMessageSignedBy, isTypedDataSignedBy, recoverSigner } from "./crypto/signatures.ts";
export { LOCAL_DEV_ACCOUNTS, LOCAL_DEV_MNEMONIC, type LocalDevAccount } from "./dev-accounts.ts";
export * from "./mpp/index.ts";
export { type CdpApiKey, cdpFacilitatorAuth, cdpJwt } from "./x402/cdp-auth.ts";
export { type FacilitatorThread, startFacilitatorThread } from "./x402/facilitator-thread.ts";
export {
  createFacilitator,
  createHostedFacilitator,
  createLocalFacilitator,
  type FacilitatorAuthHeaders,
  type FacilitatorSelection,
  type HostedFacilitatorOptions,
  type LocalFacilitatorClient,
  type LocalFacilitatorOptions,
} from "./x402/local-facilitator.ts";
export {
  type AuthorizationFacts,
  EvmSettlementChain,
  type SettlementChain,
  type SettlementOutcome,
} from "./x402/settlement-chain.ts";

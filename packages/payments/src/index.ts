/**
 * `@app/payments`: the x402 rail (an in-process or hosted facilitator) and the MPP rails, on any
 * EVM / Tempo RPC. Nothing here starts a chain or holds a well-known key: the local chain, its
 * contracts and its dev accounts are `@app/local-chain`, which production code does not import.
 *
 * @module
 */
export {
  CREATE2_DEPLOYER_ADDRESS,
  MULTICALL3_ADDRESS,
  PATH_USD_ADDRESS,
  PERMIT2_ADDRESS,
  X402_EXACT_PERMIT2_PROXY_ADDRESS,
  X402_UPTO_PERMIT2_PROXY_ADDRESS,
} from "./chain/addresses.ts";
export { isMessageSignedBy, isTypedDataSignedBy, recoverSigner } from "./crypto/signatures.ts";
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

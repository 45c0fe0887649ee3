/**
 * `@app/payments`: the x402 rail (an in-process or hosted facilitator) and the MPP rails, on any
 * EVM / Tempo RPC, with what every paid service does with them the same way: decoding and matching
 * x402 payments, Sign-In-With-X, the rails built from a provided chain or hosted settings, and
 * discovery. Nothing here starts a chain or holds a well-known key: the local chain, its
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
export {
  type DiscoveryPrice,
  type MppDiscovery,
  type OpenApiPaths,
  paidPaths,
  paymentInfo,
  wellKnownX402,
} from "./discovery.ts";
export {
  type MppChain,
  type MppChargeOutcome,
  MppRail,
  payerOfCredential,
} from "./mpp/charge-rail.ts";
export * from "./mpp/index.ts";
export {
  type FacilitatorAuth,
  type HostedRails,
  hostedRailsFrom,
  hostedRailsSettings,
} from "./rails/hosted-config.ts";
export {
  hostedPaymentRails,
  type PaymentRails,
  type ProvidedChain,
  type RailsOptions,
  railsOnProvidedChain,
} from "./rails/payment-rails.ts";
export { isRefusal, type Refusal, refusal } from "./refusal.ts";
export { SiwxNonces } from "./siwx/nonces.ts";
export {
  SiwxAuthenticator,
  SiwxError,
  type SiwxFailureCode,
  type SiwxIdentity,
  type SiwxOptions,
} from "./siwx/siwx.ts";
export { authorizationFacts, isSignedByPayer, signedTypedData } from "./x402/authorization.ts";
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
  type Authorization,
  decodePayment,
  requirementsMismatch,
  type X402Payment,
} from "./x402/payment-payload.ts";
export {
  buildPaymentRequired,
  FacilitatorX402Rail,
  type PaymentRequiredInput,
  type SettlementLookup,
  type X402Asset,
  type X402Rail,
  type X402RailOptions,
  type X402Scheme,
} from "./x402/rail.ts";
export {
  type AuthorizationFacts,
  EvmSettlementChain,
  type SettlementChain,
  type SettlementOutcome,
} from "./x402/settlement-chain.ts";

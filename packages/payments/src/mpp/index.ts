/**
 * MPP (Machine Payments Protocol, mppx 0.11) rails: `tempo.charge` and `tempo.session` servers, the
 * official client and a database-backed store. The local Tempo channel reserve and its RPC shim are
 * `@app/local-chain`'s.
 *
 * @module
 */
export { tempoChain, tempoClient, tip20Balance } from "./chain.ts";
export {
  type ChargePayer,
  type ChargePayerOptions,
  chargePayerOf,
  isUnspentCredential,
} from "./charge-payer.ts";
export {
  createMppClient,
  type MppClient,
  type MppClientOptions,
  type MppSessionManager,
  type MppSessionOptions,
} from "./client.ts";
export {
  type CloseRequest,
  type CloseRequestFeed,
  type WatchCloseRequestsOptions,
  watchCloseRequests,
} from "./close-requests.ts";
export {
  CHANNEL_RESERVE_ABI,
  CHANNEL_RESERVE_ADDRESS,
  SIGNATURE_VERIFIER_ADDRESS,
  TIP20_DECIMALS,
} from "./constants.ts";
export {
  type ChargeOptions,
  createMppRails,
  DEFAULT_MPP_PRICES,
  type MppChallenge,
  type MppPrices,
  type MppRails,
  type MppRailsConfig,
  type MppResult,
  type MppServers,
  type MppStreamResult,
  type SessionPrice,
} from "./rails.ts";
export { closedChannelAsPaymentRequired } from "./refusals.ts";
export {
  createSessionChannels,
  type SessionChannelState,
  type SessionChannels,
  type SessionChannelsOptions,
  type SessionSettlement,
} from "./session-channels.ts";
export {
  createDbStore,
  type DbStoreOptions,
  expiryOf,
  mppStoreTableSql,
  purgeExpiredEntries,
} from "./store.ts";

export { canonicalJson, requestFingerprint } from "./idempotency/fingerprint.ts";
export { idempotencyKeyReused, requestInProgress } from "./idempotency/idempotency-errors.ts";
export {
  IDEMPOTENCY_KEY_HEADER,
  idempotencyKeyOf,
  invalidIdempotencyKey,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  parseIdempotencyKey,
} from "./idempotency/idempotency-key.ts";
export {
  IDEMPOTENCY_TTL_MS,
  type IdempotencyBegin,
  type IdempotencyLease,
  IdempotencyStore,
  type IdempotencyStoreOptions,
  type IdempotentRequest,
  type PendingKey,
} from "./idempotency/idempotency-store.ts";
export { keepAnswer, releaseKey } from "./idempotency/settle-key.ts";
export {
  IDEMPOTENT_REPLAYED_HEADER,
  type StoredResponse,
  sendStoredResponse,
  storedJson,
  storedJsonText,
} from "./idempotency/stored-response.ts";
export {
  apiKeyHash,
  isPlausibleApiKey,
  issueApiKey,
  MAX_API_KEY_LENGTH,
  type NewApiKey,
  sameKeyHash,
  verifyApiKey,
} from "./keys/api-key.ts";
export {
  type ApiKeyAuthOptions,
  type ApiKeyEnv,
  type ApiKeyMiddleware,
  type ApiKeySource,
  type ApiKeyVariables,
  apiKeyAuth,
  bearerChallenge,
  bearerToken,
  type KeyRateLimit,
  type ScopeRequirement,
} from "./keys/api-key-auth.ts";
export { InMemoryApiKeyStore } from "./keys/api-key-store.fake.ts";
export type {
  ApiKeyRecord,
  ApiKeyRequest,
  ApiKeyStore,
  IssuedApiKey,
  VerifiedApiKey,
} from "./keys/api-key-store.ts";
export { type ApiKeyTable, DatabaseApiKeyStore } from "./keys/database-api-key-store.ts";
export {
  LAST_USED_RESOLUTION_MS,
  lastUsedIsStale,
  lastUseMarksSettled,
  markUsedInBackground,
} from "./keys/last-used.ts";
export { missingScope } from "./keys/scopes.ts";
export { EDGE_SCHEMA, edgeMigrationSet } from "./migrations.ts";
export { DatabaseFixedWindow } from "./rate-limit/database-fixed-window.ts";
export { DatabaseTokenBucket } from "./rate-limit/database-token-bucket.ts";
export type { DatabaseLimiterOptions } from "./rate-limit/limiter-options.ts";
export { MemoryFixedWindow, type MemoryFixedWindowOptions } from "./rate-limit/memory-fixed-window.ts";
export { rateLimitedError, rateLimitHeaders } from "./rate-limit/rate-limit-response.ts";
export type { RateDecision, RateLimiter, RateRule } from "./rate-limit/rate-limiter.ts";

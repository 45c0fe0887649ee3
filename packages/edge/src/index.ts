export { EDGE_SCHEMA, edgeMigrationSet } from "./migrations.ts";
export { rateLimitedError, rateLimitHeaders } from "./rate-limit/rate-limit-response.ts";
export type { RateDecision, RateLimiter, RateRule } from "./rate-limit/rate-limiter.ts";

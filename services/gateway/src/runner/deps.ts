import type { Clock, Logger } from "@app/core";
import type { Database } from "@app/db";
import type { ToolRegistry } from "../registry/registry.ts";
import type { AccountStore } from "../store/accounts.ts";
import type { IdempotencyStore } from "../store/idempotency.ts";
import type { RateLimiter } from "../store/rate-buckets.ts";
import type { RunStore } from "../store/runs.ts";
import type { UpstreamClient } from "../upstream/client.ts";

/** Everything a run or an inspect is made of; built once in `service.ts` (or a test). */
export type GatewayDeps = {
  db: Database;
  logger: Logger;
  clock: Clock;
  registry: ToolRegistry;
  upstream: UpstreamClient;
  accounts: AccountStore;
  runs: RunStore;
  idempotency: IdempotencyStore;
  rateLimiter: RateLimiter;
  /** The per-key limit, for the 429 message. */
  runsPerMinute: number;
};

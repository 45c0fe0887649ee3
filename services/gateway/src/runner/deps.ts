import type { Clock, Logger } from "@app/core";
import type { Database } from "@app/db";
import type { IdempotencyStore } from "@app/edge";
import type { ToolRegistry } from "../registry/registry.ts";
import type { AccountStore } from "../store/accounts.ts";
import type { BalanceView } from "../store/balances.ts";
import type { KeyCache } from "../store/key-cache.ts";
import type { RunStore } from "../store/runs.ts";
import type { UsageWriter } from "../store/usage-writer.ts";
import type { UpstreamClient } from "../upstream/client.ts";
import type { HeldSpend } from "./held-spend.ts";
import type { KeyRateLimiters } from "./run-rate-limit.ts";

/** Everything a run or an inspect is made of; built once in `service.ts` (or a test). */
export type GatewayDeps = {
  db: Database;
  logger: Logger;
  clock: Clock;
  registry: ToolRegistry;
  upstream: UpstreamClient;
  accounts: AccountStore;
  /** Gateway keys found valid lately (revocations honoured at once here, within 1 s elsewhere). */
  keys: KeyCache;
  /** Balances as this instance last saw them (shown by free runs). */
  balances: BalanceView;
  runs: RunStore;
  /** Priced runs without an Idempotency-Key, charged from this instance's holds and settled in batches. */
  held: HeldSpend;
  /** Writes free runs' usage records and ledger rows just after they answer, in batches. */
  usage: UsageWriter;
  idempotency: IdempotencyStore;
  /**
   * Runs per key (subject: the key id): a token bucket at the default rate, or at the key's own
   * (its policy's `ratePerMinute`), mostly served from this instance's lease.
   */
  rateLimiter: KeyRateLimiters;
};

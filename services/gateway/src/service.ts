import { type Clock, type Logger, systemClock } from "@app/core";
import type { Database } from "@app/db";
import { DatabaseTokenBucket } from "@app/edge";
import type { ServiceDefinition } from "@app/runtime";
import { createApp } from "./app.ts";
import { type GatewayConfig, loadGatewayConfig } from "./config.ts";
import { PROVIDERS } from "./registry/providers.ts";
import { createRegistry, type ToolRegistry } from "./registry/registry.ts";
import type { GatewayDeps } from "./runner/deps.ts";
import { AccountStore } from "./store/accounts.ts";
import { BalanceView } from "./store/balances.ts";
import { gatewayIdempotencyStore } from "./store/idempotency.ts";
import { KeyCache } from "./store/key-cache.ts";
import { abandonAfterMs, startRunSweeper } from "./store/run-sweeper.ts";
import { RunStore } from "./store/runs.ts";
import { UsageWriter } from "./store/usage-writer.ts";
import type { UpstreamClient } from "./upstream/client.ts";
import { createUndiciUpstreamClient } from "./upstream/undici-client.ts";

/** What the gateway is built from besides its database: the registry, the upstream client, limits. */
export type GatewayParts = {
  registry: ToolRegistry;
  upstream: UpstreamClient;
  runsPerMinute: number;
  clock?: Clock;
  /** The upstream's total deadline: a pending Idempotency-Key is leased for it plus a margin. */
  upstreamTimeoutMs?: number;
};

/** Wires the stores and capabilities into the dependencies of the app (the service and tests). */
export function buildGatewayDeps(db: Database, logger: Logger, parts: GatewayParts): GatewayDeps {
  const clock = parts.clock ?? systemClock;
  const accounts = new AccountStore(db, clock);
  const balances = new BalanceView();
  return {
    db,
    logger,
    clock,
    registry: parts.registry,
    upstream: parts.upstream,
    accounts,
    keys: new KeyCache(accounts, balances),
    balances,
    runs: new RunStore(db),
    usage: new UsageWriter(db, logger),
    idempotency: gatewayIdempotencyStore(db, clock, parts.upstreamTimeoutMs),
    rateLimiter: new DatabaseTokenBucket(db, {
      namespace: "gateway",
      rule: { limit: parts.runsPerMinute, windowSeconds: 60 },
      clock,
    }),
  };
}

/** The registry of the spec's five tools at the configured base URLs. */
export function configuredRegistry(config: Pick<GatewayConfig, "providerUrls">): ToolRegistry {
  return createRegistry(PROVIDERS, config.providerUrls);
}

/** How the runtime starts the gateway service. */
export const gatewayService: ServiceDefinition<GatewayConfig> = {
  name: "gateway",
  title: "Tool Gateway API",
  loadConfig: loadGatewayConfig,
  migrations: new URL("../migrations/", import.meta.url),
  upstreams: { GATEWAY_SHOP_URL: "shop", GATEWAY_MARKETS_URL: "markets", GATEWAY_PUBLISHER_URL: "publisher" },
  build: async ({ config, db, logger }) => {
    const upstream = createUndiciUpstreamClient(config.upstreamLimits);
    const deps = buildGatewayDeps(db, logger, {
      registry: configuredRegistry(config),
      upstream,
      runsPerMinute: config.runsPerMinute,
      upstreamTimeoutMs: config.upstreamLimits.timeoutMs,
    });
    const stopSweeper = startRunSweeper(deps, {
      abandonAfterMs: abandonAfterMs(config.upstreamLimits.timeoutMs),
    });
    return {
      app: createApp(deps),
      stop: async () => {
        stopSweeper();
        await deps.usage.flush();
        await upstream.close();
      },
    };
  },
};

import { type Clock, type Logger, systemClock } from "@app/core";
import type { Database } from "@app/db";
import { DatabaseTokenBucket } from "@app/edge";
import type { ServiceDefinition } from "@app/runtime";
import { createApp } from "./app.ts";
import { type GatewayConfig, loadGatewayConfig } from "./config.ts";
import { type GatewayChainProvider, startGatewayRails } from "./rails.ts";
import { PROVIDERS } from "./registry/providers.ts";
import { createRegistry, type ToolRegistry } from "./registry/registry.ts";
import type { GatewayDeps } from "./runner/deps.ts";
import { HeldSpend } from "./runner/held-spend.ts";
import { KeyRateLimiters } from "./runner/run-rate-limit.ts";
import { buildSelfServeDeps } from "./self-serve/deps.ts";
import { CreditReconciler } from "./self-serve/reconciler.ts";
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
  // Every rate counts in the key's one bucket of the namespace (see KeyRateLimiters).
  const runsBucket = (runsPerMinute: number) =>
    new DatabaseTokenBucket(db, {
      namespace: "gateway",
      rule: { limit: runsPerMinute, windowSeconds: 60 },
      clock,
    });
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
    held: new HeldSpend(db, logger, { clock }),
    usage: new UsageWriter(db, logger),
    idempotency: gatewayIdempotencyStore(db, clock, parts.upstreamTimeoutMs),
    rateLimiter: new KeyRateLimiters(runsBucket(parts.runsPerMinute), runsBucket),
  };
}

/** The registry of the spec's five tools at the configured base URLs, at the configured prices. */
export function configuredRegistry(config: Pick<GatewayConfig, "providerUrls" | "toolPrices">): ToolRegistry {
  return createRegistry(PROVIDERS, config.providerUrls, config.toolPrices);
}

/** What a launcher gives the gateway service. */
export type GatewayServiceOptions = {
  /**
   * The chain for `GATEWAY_RAILS=local`. Production entry points pass none (hosted rails, or no
   * self-serve credit); the launcher and test harnesses pass one built on `@app/local-chain`.
   */
  localChain?: GatewayChainProvider;
};

/**
 * How the runtime starts the gateway service: its runs, and, on payment rails (a provided local
 * chain or hosted), self-serve accounts, keys and credit.
 */
export function createGatewayService(options: GatewayServiceOptions = {}): ServiceDefinition<GatewayConfig> {
  return {
    name: "gateway",
    title: "Tool Gateway API",
    loadConfig: loadGatewayConfig,
    migrations: new URL("../migrations/", import.meta.url),
    upstreams: {
      GATEWAY_SHOP_URL: "shop",
      GATEWAY_MARKETS_URL: "markets",
      GATEWAY_PUBLISHER_URL: "publisher",
    },
    build: async ({ config, db, logger }) => {
      const rails = await startGatewayRails(config, db, logger, options.localChain);
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
      // The public origin sign-ins are checked against: configured, or where the service listens.
      let origin = new URL(config.publicUrl ?? `http://${config.host}:${config.port}`);
      const selfServe =
        rails &&
        buildSelfServeDeps(db, logger, {
          rails,
          accounts: deps.accounts,
          clock: deps.clock,
          origin: () => origin,
        });
      const stopReconciler =
        rails &&
        selfServe &&
        new CreditReconciler({
          db,
          x402: rails.x402,
          mpp: rails.mpp,
          payments: selfServe.payments,
          creditKeys: selfServe.purchase.deps.creditKeys,
          clock: deps.clock,
          logger,
        }).start();
      return {
        app: createApp(deps, selfServe),
        credentials: rails?.credentials,
        onListening(url: string) {
          if (!config.publicUrl) origin = new URL(url);
        },
        stop: async () => {
          stopSweeper();
          stopReconciler?.();
          await deps.usage.flush();
          await deps.held.stop();
          await upstream.close();
          await rails?.stop();
        },
      };
    },
  };
}

/** The gateway as production runs it: hosted rails, or none (`GATEWAY_RAILS=local` has no chain here). */
export const gatewayService: ServiceDefinition<GatewayConfig> = createGatewayService();

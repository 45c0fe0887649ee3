import type { Logger } from "@app/core";
import type { Database } from "@app/db";
import type { ServiceDefinition } from "@app/runtime";
import { createApp } from "./app.ts";
import { type Catalogue, seededCatalogue } from "./catalogue/catalogue.ts";
import { loadMarketsConfig, type MarketsConfig } from "./config.ts";
import { PaperAccountStore } from "./store/accounts.ts";
import { MarketStateStore } from "./store/market-state.ts";
import { TradingStore } from "./store/trading.ts";

/** Builds the markets app on a database (the catalogue defaults to the seeded one). */
export function buildMarketsApp(
  config: Pick<MarketsConfig, "startingBalanceMicro" | "operatorToken">,
  db: Database,
  logger: Logger,
  catalogue: Catalogue = seededCatalogue(),
) {
  return createApp({
    db,
    logger,
    catalogue,
    states: new MarketStateStore(db, catalogue),
    accounts: new PaperAccountStore(db),
    trading: new TradingStore(db),
    startingBalanceMicro: config.startingBalanceMicro,
    operatorToken: config.operatorToken,
  });
}

/** How the runtime starts the markets service. */
export const marketsService: ServiceDefinition<MarketsConfig> = {
  name: "markets",
  title: "Markets API",
  loadConfig: loadMarketsConfig,
  migrations: new URL("../migrations/", import.meta.url),
  build: async ({ config, db, logger }) => ({ app: buildMarketsApp(config, db, logger) }),
};

import { createServiceApp, type Logger, type ServiceApp } from "@app/core";
import { type Database, pingDatabase } from "@app/db";

/** What the markets app is built from. */
export type MarketsDeps = { db: Database; logger: Logger };

/** The markets service's Hono app. */
export function createApp(deps: MarketsDeps): ServiceApp {
  return createServiceApp({
    name: "markets",
    title: "Markets API",
    version: "1.0.0",
    description: "Prediction-market events, markets, ref resolution and paper trading.",
    logger: deps.logger,
    checkReady: () => pingDatabase(deps.db),
  });
}

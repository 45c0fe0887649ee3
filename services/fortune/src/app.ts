import { createServiceApp, type Logger, type ServiceApp } from "@app/core";
import { type Database, pingDatabase } from "@app/db";

/** What the fortune app is built from. */
export type FortuneDeps = { db: Database; logger: Logger };

/** The fortune service's Hono app. */
export function createApp(deps: FortuneDeps): ServiceApp {
  return createServiceApp({
    name: "fortune",
    title: "Fortune API",
    version: "1.0.0",
    description: "Pay-per-call fortunes: x402 and MPP payments, Sign-In-With-X identity.",
    logger: deps.logger,
    checkReady: () => pingDatabase(deps.db),
  });
}

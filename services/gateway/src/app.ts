import { createServiceApp, type Logger, type ServiceApp } from "@app/core";
import { type Database, pingDatabase } from "@app/db";

/** What the gateway app is built from. */
export type GatewayDeps = { db: Database; logger: Logger };

/** The gateway service's Hono app. */
export function createApp(deps: GatewayDeps): ServiceApp {
  return createServiceApp({
    name: "gateway",
    title: "Tool Gateway API",
    version: "1.0.0",
    description: "Runs registered upstream tools over HTTP and MCP.",
    logger: deps.logger,
    checkReady: () => pingDatabase(deps.db),
  });
}

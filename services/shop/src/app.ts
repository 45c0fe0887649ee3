import { createServiceApp, type Logger, type ServiceApp } from "@app/core";
import { type Database, pingDatabase } from "@app/db";

/** What the shop app is built from. */
export type ShopDeps = { db: Database; logger: Logger };

/** The shop service's Hono app. */
export function createApp(deps: ShopDeps): ServiceApp {
  return createServiceApp({
    name: "shop",
    title: "Shop API",
    version: "1.0.0",
    description: "Shops, services, open slots and bookings: the upstream of the shop-availability tool.",
    logger: deps.logger,
    checkReady: () => pingDatabase(deps.db),
  });
}

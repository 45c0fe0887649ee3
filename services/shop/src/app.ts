import { type Clock, createServiceApp, type Logger, type ServiceApp, systemClock } from "@app/core";
import { type Database, pingDatabase } from "@app/db";
import { DatabaseFixedWindow } from "@app/edge";
import type { LimitedAction, RateLimits } from "./config.ts";
import { type RouteDeps, SHOP_KEY_HEADER } from "./routes/shared.ts";
import { registerShopAgentAvailability } from "./routes/shop_agent_availability.ts";
import { registerShopBookingCreate } from "./routes/shop_booking_create.ts";
import { Scheduler } from "./scheduler.ts";
import { ShopKeys } from "./store/keys.ts";

/** What the shop app is built from. */
export type ShopDeps = { db: Database; logger: Logger; limits: RateLimits; clock?: Clock };

/** The shop service's Hono app: availability (the gateway tool's upstream) and bookings. */
export function createApp(deps: ShopDeps): ServiceApp {
  const clock = deps.clock ?? systemClock;
  const app = createServiceApp({
    name: "shop",
    title: "Shop API",
    version: "1.0.0",
    description: "Shops, services, open slots and bookings: the upstream of the shop-availability tool.",
    logger: deps.logger,
    checkReady: () => pingDatabase(deps.db),
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "shopKey", {
    type: "apiKey",
    in: "header",
    name: SHOP_KEY_HEADER,
    description: "A shop API key, created by the shop owner with `npm run shop -- keys create`",
  });
  const limiter = (action: LimitedAction) =>
    new DatabaseFixedWindow(deps.db, { namespace: `shop.${action}`, rule: deps.limits[action], clock });
  const routeDeps: RouteDeps = {
    scheduler: new Scheduler(deps.db, clock),
    keys: new ShopKeys(deps.db, clock),
    limiters: { read: limiter("read"), booking: limiter("booking") },
  };
  registerShopAgentAvailability(app, routeDeps);
  registerShopBookingCreate(app, routeDeps);
  return app;
}

import { type Clock, createServiceApp, type Logger, type ServiceApp, systemClock } from "@app/core";
import { type Database, pingDatabase } from "@app/db";
import type { RateLimits } from "./domain/rate-limit.ts";
import { SHOP_KEY_HEADER } from "./routes/shared.ts";
import { registerShopAgentAvailability } from "./routes/shop_agent_availability.ts";
import { registerShopBookingCreate } from "./routes/shop_booking_create.ts";
import { Scheduler } from "./scheduler.ts";
import { ShopKeys } from "./store/keys.ts";
import { RateLimiter } from "./store/rate-limits.ts";

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
  const routeDeps = {
    scheduler: new Scheduler(deps.db, clock),
    keys: new ShopKeys(deps.db),
    limiter: new RateLimiter(deps.db, deps.limits, clock),
  };
  registerShopAgentAvailability(app, routeDeps);
  registerShopBookingCreate(app, routeDeps);
  return app;
}

import type { ServiceDefinition } from "@app/runtime";
import { createApp } from "./app.ts";
import { loadShopConfig, type ShopConfig } from "./config.ts";

/** How the runtime starts the shop service. */
export const shopService: ServiceDefinition<ShopConfig> = {
  name: "shop",
  title: "Shop API",
  loadConfig: loadShopConfig,
  migrations: new URL("../migrations/", import.meta.url),
  build: async ({ config, db, logger }) => ({ app: createApp({ db, logger, limits: config.limits }) }),
};

import type { ServiceDefinition } from "@app/runtime";
import { createApp } from "./app.ts";
import { loadMarketsConfig, type MarketsConfig } from "./config.ts";

/** How the runtime starts the markets service. */
export const marketsService: ServiceDefinition<MarketsConfig> = {
  name: "markets",
  title: "Markets API",
  loadConfig: loadMarketsConfig,
  migrations: new URL("../migrations/", import.meta.url),
  build: async ({ db, logger }) => ({ app: createApp({ db, logger }) }),
};

import type { ServiceDefinition } from "@app/runtime";
import { createApp } from "./app.ts";
import { type FortuneConfig, loadFortuneConfig } from "./config.ts";

/** How the runtime starts the fortune service. */
export const fortuneService: ServiceDefinition<FortuneConfig> = {
  name: "fortune",
  title: "Fortune API",
  loadConfig: loadFortuneConfig,
  migrations: new URL("../migrations/", import.meta.url),
  build: async ({ db, logger }) => ({ app: createApp({ db, logger }) }),
};

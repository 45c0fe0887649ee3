import type { ServiceDefinition } from "@app/runtime";
import { createApp } from "./app.ts";
import { type GatewayConfig, loadGatewayConfig } from "./config.ts";

/** How the runtime starts the gateway service. */
export const gatewayService: ServiceDefinition<GatewayConfig> = {
  name: "gateway",
  title: "Tool Gateway API",
  loadConfig: loadGatewayConfig,
  migrations: new URL("../migrations/", import.meta.url),
  build: async ({ db, logger }) => ({ app: createApp({ db, logger }) }),
};

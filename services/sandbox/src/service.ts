import type { ServiceDefinition } from "@app/runtime";
import { createApp } from "./app.ts";
import { loadSandboxConfig, type SandboxConfig } from "./config.ts";

/** How the runtime starts the sandbox service. */
export const sandboxService: ServiceDefinition<SandboxConfig> = {
  name: "sandbox",
  title: "Platform Sandbox",
  loadConfig: loadSandboxConfig,
  migrations: new URL("../migrations/", import.meta.url),
  build: async ({ db, logger }) => ({ app: createApp({ db, logger }) }),
};

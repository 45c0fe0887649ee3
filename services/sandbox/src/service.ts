import type { ServiceDefinition } from "@app/runtime";
import { createApp } from "./app.ts";
import { loadSandboxConfig, type SandboxConfig } from "./config.ts";
import { demoCredentials } from "./demo.ts";

/** How the runtime starts the sandbox service. */
export const sandboxService: ServiceDefinition<SandboxConfig> = {
  name: "sandbox",
  title: "Platform Sandbox",
  loadConfig: loadSandboxConfig,
  migrations: new URL("../migrations/", import.meta.url),
  build: async ({ config, db, logger }) => {
    const credentials: Record<string, unknown> = {};
    return {
      app: createApp({ db, logger, settings: config.sandbox }),
      credentials,
      onListening: (url) => Object.assign(credentials, demoCredentials(url)),
    };
  },
};

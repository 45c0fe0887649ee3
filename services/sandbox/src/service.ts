import type { ServiceDefinition } from "@app/runtime";
import { createSandbox } from "./app.ts";
import { serveBlueskyNetwork } from "./bluesky/listeners.ts";
import { loadSandboxConfig, type SandboxConfig } from "./config.ts";
import { demoCredentials } from "./demo.ts";

/**
 * How the runtime starts the sandbox service. Besides its own listener (the runtime's), the
 * sandbox opens two of its Bluesky network while it is built: the PLC directory
 * (`SANDBOX_PLC_PORT`) and the second PDS (`SANDBOX_PDS2_PORT`); `stop` closes them. Their URLs
 * join the credentials; the default PDS's URL (the sandbox's) is known once it listens.
 */
export const sandboxService: ServiceDefinition<SandboxConfig> = {
  name: "sandbox",
  title: "Platform Sandbox",
  loadConfig: loadSandboxConfig,
  migrations: new URL("../migrations/", import.meta.url),
  build: async ({ config, db, logger }) => {
    const credentials: Record<string, unknown> = {};
    const sandbox = createSandbox({ db, logger, settings: config.sandbox });
    const listeners = await serveBlueskyNetwork(sandbox.bluesky, {
      host: config.host,
      plcPort: config.sandbox.bluesky.plcPort,
      pds2Port: config.sandbox.bluesky.pds2Port,
    });
    return {
      app: sandbox.app,
      credentials,
      onListening: (url) => {
        sandbox.bluesky.network.origins.default = url;
        Object.assign(credentials, demoCredentials(url, listeners));
      },
      stop: () => listeners.close(),
    };
  },
};

export { createApp, createSandbox, type SandboxDeps } from "./app.ts";
export {
  type BlueskyListeners,
  type BlueskyNetworkApps,
  serveBlueskyNetwork,
} from "./bluesky/listeners.ts";
export {
  defaultSandboxSettings,
  loadSandboxConfig,
  type SandboxConfig,
  type SandboxSettings,
} from "./config.ts";
export type { SandboxContext } from "./context.ts";
export { sandboxService } from "./service.ts";

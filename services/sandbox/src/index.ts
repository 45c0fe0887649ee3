export { createApp, type SandboxDeps } from "./app.ts";
export { loadSandboxConfig, type SandboxConfig } from "./config.ts";
export { sandboxService } from "./service.ts";

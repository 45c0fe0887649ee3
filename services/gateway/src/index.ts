export { createApp, type GatewayDeps } from "./app.ts";
export { type GatewayConfig, loadGatewayConfig } from "./config.ts";
export type { GatewayChainProvider } from "./rails.ts";
export { PROVIDERS } from "./registry/providers.ts";
export { createRegistry, ToolRegistry } from "./registry/registry.ts";
export type { ProviderDeclaration, ToolDeclaration } from "./registry/types.ts";
export type { RunEnvelope } from "./runner/run-tool.ts";
export {
  buildGatewayDeps,
  configuredRegistry,
  createGatewayService,
  type GatewayParts,
  type GatewayServiceOptions,
  gatewayService,
} from "./service.ts";
export { FakeUpstreamClient, jsonAnswer } from "./upstream/client.fake.ts";
export type { UpstreamClient, UpstreamLimits, UpstreamRequest, UpstreamResponse } from "./upstream/client.ts";
export { UpstreamFailure } from "./upstream/client.ts";
export { createUndiciUpstreamClient } from "./upstream/undici-client.ts";

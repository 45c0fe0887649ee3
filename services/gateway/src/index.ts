export { createApp, type GatewayDeps } from "./app.ts";
export { type GatewayConfig, loadGatewayConfig } from "./config.ts";
export { gatewayService } from "./service.ts";

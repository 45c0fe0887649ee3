import { createServiceApp, type ServiceApp } from "@app/core";
import { pingDatabase } from "@app/db";
import { registerInspect } from "./routes/inspect.ts";
import { registerMcp } from "./routes/mcp.ts";
import { registerRun } from "./routes/run.ts";
import type { GatewayDeps } from "./runner/deps.ts";

export type { GatewayDeps };

/** The gateway service's Hono app: `/v1/run`, `/v1/inspect`, `/mcp`. */
export function createApp(deps: GatewayDeps): ServiceApp {
  const app = createServiceApp({
    name: "gateway",
    title: "Tool Gateway API",
    version: "1.0.0",
    description:
      "Runs registered upstream tools on the caller's behalf, over HTTP (`/v1/run`, `/v1/inspect`) and MCP (`/mcp`: tools `inspect` and `run`).",
    logger: deps.logger,
    checkReady: () => pingDatabase(deps.db),
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "gatewayKey", {
    type: "http",
    scheme: "bearer",
    description: "A gateway key (`gwk_…`), from `npm run gateway -- keys create`",
  });
  registerRun(app, deps);
  registerInspect(app, deps);
  registerMcp(app, deps);
  return app;
}

import { llmsTxt } from "../registry/guidance.ts";
import type { GatewayDeps } from "../runner/deps.ts";
import type { GatewayApp } from "./shared.ts";

/**
 * GET /llms.txt: plain guidance for agents, generated from the registry once (it does not change
 * while the service runs). Public, like the README and `/openapi.json`: it says how to
 * authenticate, so it cannot ask for the key.
 */
export function registerLlmsTxt(app: GatewayApp, deps: Pick<GatewayDeps, "registry">): void {
  const text = llmsTxt(deps.registry);
  app.get("/llms.txt", (c) => c.text(text));
}

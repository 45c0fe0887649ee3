import { llmsTxt } from "../registry/guidance.ts";
import type { GatewayDeps } from "../runner/deps.ts";
import type { GatewayApp } from "./shared.ts";

/**
 * GET /llms.txt: plain guidance for agents, generated from the registry once (it does not change
 * while the service runs), with the self-serve path when the gateway has payment rails
 * (`selfServe`). Public, like the README and `/openapi.json`: it says how to authenticate, so it
 * cannot ask for the key.
 */
export function registerLlmsTxt(
  app: GatewayApp,
  deps: Pick<GatewayDeps, "registry">,
  selfServe: boolean,
): void {
  const text = llmsTxt(deps.registry, selfServe);
  app.get("/llms.txt", (c) => c.text(text));
}

import { createServiceApp, type ServiceApp } from "@app/core";
import { pingDatabase } from "@app/db";
import { registerAccountsCreate } from "./routes/accounts_create.ts";
import { registerCreditsBuy } from "./routes/credits_buy.ts";
import { registerDiscovery } from "./routes/discovery.ts";
import { registerInspect } from "./routes/inspect.ts";
import { registerKeyPolicyUpdate } from "./routes/key-policy-update.ts";
import { registerKeysCreate } from "./routes/keys_create.ts";
import { registerKeysList } from "./routes/keys_list.ts";
import { registerKeysRevoke } from "./routes/keys_revoke.ts";
import { registerLedgerList } from "./routes/ledger-list.ts";
import { registerLlmsTxt } from "./routes/llms-txt.ts";
import { registerMcp } from "./routes/mcp.ts";
import { registerProviderGet } from "./routes/provider-get.ts";
import { registerProvidersList } from "./routes/providers-list.ts";
import { registerRun } from "./routes/run.ts";
import { registerRunGet } from "./routes/run-get.ts";
import { registerRunsList } from "./routes/runs-list.ts";
import { registerSelfServeNotConfigured } from "./routes/self-serve-not-configured.ts";
import { registerUsage } from "./routes/usage.ts";
import type { GatewayDeps } from "./runner/deps.ts";
import type { SelfServeDeps } from "./self-serve/deps.ts";

export type { GatewayDeps, SelfServeDeps };

/**
 * The gateway service's Hono app: `/v1/run`, `/v1/inspect`, `/v1/providers`, `/mcp`, `/llms.txt`,
 * the history (`/v1/runs`, `/v1/usage`, `/v1/ledger`); with payment rails (`selfServe`), also the
 * self-serve accounts, keys and credit, and `/.well-known/x402`; without, the self-serve routes
 * answer 503 `NOT_CONFIGURED`.
 */
export function createApp(deps: GatewayDeps, selfServe?: SelfServeDeps): ServiceApp {
  const app = createServiceApp({
    name: "gateway",
    title: "Tool Gateway API",
    version: "1.0.0",
    description:
      "Runs registered upstream tools on the caller's behalf, over HTTP (`/v1/run`, `/v1/inspect`; the catalog at `/v1/providers`) and MCP (`/mcp`: tools `inspect` and `run`).",
    logger: deps.logger,
    checkReady: () => pingDatabase(deps.db),
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "gatewayKey", {
    type: "http",
    scheme: "bearer",
    description:
      "A gateway key (`gwk_…`): from `POST /v1/accounts` or `POST /v1/keys` (signed in with your wallet), or `npm run gateway -- keys create`",
  });
  registerRun(app, deps);
  registerInspect(app, deps);
  registerProvidersList(app, deps);
  registerProviderGet(app, deps);
  registerLlmsTxt(app, deps, selfServe !== undefined);
  registerMcp(app, deps);
  registerKeyPolicyUpdate(app, deps, selfServe);
  registerRunsList(app, deps);
  registerRunGet(app, deps);
  registerUsage(app, deps);
  registerLedgerList(app, deps);
  if (selfServe) registerSelfServe(app, selfServe);
  else registerSelfServeNotConfigured(app);
  return app;
}

/** Accounts, keys and credit for a wallet with no key yet: signed in with it (SIWX), paid from it. */
function registerSelfServe(app: ServiceApp, deps: SelfServeDeps): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "siwx", {
    type: "apiKey",
    in: "header",
    name: "SIGN-IN-WITH-X",
  });
  registerAccountsCreate(app, deps);
  registerKeysCreate(app, deps);
  registerKeysList(app, deps);
  registerKeysRevoke(app, deps);
  registerCreditsBuy(app, deps);
  registerDiscovery(app, deps.origin);
}

import { createServiceApp, type Logger, type ServiceApp } from "@app/core";
import { type Database, pingDatabase } from "@app/db";
import type { SessionBilling } from "./payments/session-billing.ts";
import { GUIDANCE, registerDiscovery } from "./routes/discovery.ts";
import { registerFortune } from "./routes/fortune.ts";
import { registerFortuneDynamic } from "./routes/fortune_dynamic.ts";
import { registerFortuneFavoritesList } from "./routes/fortune_favorites_list.ts";
import { registerFortuneFavoritesSave } from "./routes/fortune_favorites_save.ts";
import { registerFortuneLlm } from "./routes/fortune_llm.ts";
import { registerFortuneMembership } from "./routes/fortune_membership.ts";
import { registerFortunePremium } from "./routes/fortune_premium.ts";
import { registerFortuneProfile } from "./routes/fortune_profile.ts";
import { registerFortuneStream } from "./routes/fortune_stream.ts";
import type { RouteDeps } from "./routes/shared.ts";

/** What the fortune app is built from. */
export type FortuneDeps = RouteDeps & {
  db: Database;
  logger: Logger;
  origin: () => URL;
  sessionBilling: SessionBilling;
};

/** The fortune service's Hono app: paid and SIWX routes, discovery, health. */
export function createApp(deps: FortuneDeps): ServiceApp {
  const app = createServiceApp({
    name: "fortune",
    title: "Fortune API",
    version: "1.0.0",
    description: "Pay-per-call fortunes: x402 and MPP payments, Sign-In-With-X identity.",
    logger: deps.logger,
    checkReady: () => pingDatabase(deps.db),
    decorateOpenApi: (document) => ({
      ...document,
      servers: [{ url: deps.origin().origin }],
      info: { ...(document.info as object), "x-guidance": GUIDANCE.join("\n") },
    }),
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "siwx", {
    type: "apiKey",
    in: "header",
    name: "SIGN-IN-WITH-X",
  });
  registerFortune(app, deps);
  registerFortunePremium(app, deps);
  registerFortuneProfile(app, deps);
  registerFortuneMembership(app, deps);
  registerFortuneFavoritesSave(app, deps);
  registerFortuneFavoritesList(app, deps);
  registerFortuneDynamic(app, deps);
  registerFortuneLlm(app, deps);
  registerFortuneStream(app, deps);
  registerDiscovery(app, deps.origin);
  return app;
}

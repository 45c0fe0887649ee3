import { createServiceApp, type Logger, type ServiceApp } from "@app/core";
import { pingDatabase } from "@app/db";
import { registerPaperAccountCreate } from "./routes/paper_account_create.ts";
import { registerPaperAccountGet } from "./routes/paper_account_get.ts";
import { registerPaperMarketResolve } from "./routes/paper_market_resolve.ts";
import { registerPaperOrderCreate } from "./routes/paper_order_create.ts";
import { registerPmBook } from "./routes/pm_book.ts";
import { registerPmEvent } from "./routes/pm_event.ts";
import type { RouteDeps } from "./routes/shared.ts";

/** What the markets app is built from. */
export type MarketsDeps = RouteDeps & { logger: Logger };

/** The markets service's Hono app: event lookup, order books, paper trading. */
export function createApp(deps: MarketsDeps): ServiceApp {
  const app = createServiceApp({
    name: "markets",
    title: "Markets API",
    version: "1.0.0",
    description: "Prediction-market events, markets, ref resolution and paper trading.",
    logger: deps.logger,
    checkReady: () => pingDatabase(deps.db),
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "paperAccount", {
    type: "http",
    scheme: "bearer",
    description: "The token returned once by POST /pm/paper/accounts",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "operator", {
    type: "http",
    scheme: "bearer",
    description: "MARKETS_OPERATOR_TOKEN",
  });
  registerPmEvent(app, deps);
  registerPmBook(app, deps);
  registerPaperAccountCreate(app, deps);
  registerPaperAccountGet(app, deps);
  registerPaperOrderCreate(app, deps);
  registerPaperMarketResolve(app, deps);
  return app;
}

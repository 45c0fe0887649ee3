import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { listPositions } from "../store/positions.ts";
import { portfolioView } from "../views/account.ts";
import { AccountSchema, PositionSchema } from "./schemas.ts";
import { BEARER_SECURITY, type MarketsApp, paperAccountGuard, type RouteDeps } from "./shared.ts";

export const PortfolioSchema = z
  .object({
    account: AccountSchema,
    positions: z.array(PositionSchema),
    totals: z.object({
      marketValue: z.string(),
      unrealisedPnl: z.string(),
      realisedPnl: z.string(),
      equity: z.string(),
    }),
  })
  .openapi("Portfolio");

/** GET /pm/paper/account: the caller's balance, positions with P&L, and totals. */
export function registerPaperAccountGet(app: MarketsApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "get",
    path: "/pm/paper/account",
    operationId: "paper_account_get",
    tags: ["Paper trading"],
    summary: "Your paper balance and positions",
    security: BEARER_SECURITY,
    middleware: paperAccountGuard(deps),
    responses: {
      200: jsonResponse(PortfolioSchema, "Balance, positions valued at the displayed price, totals"),
      401: errorResponseSpec("Missing or invalid account token"),
    },
  });
  app.openapi(route, async (c) => {
    const account = c.var.caller;
    const positions = await listPositions(deps.db, account.id);
    const markets = [...new Set(positions.map((position) => position.conditionId))]
      .map((id) => deps.catalogue.market(id))
      .filter((market) => market !== undefined);
    const live = await deps.states.live(markets);
    return c.json(portfolioView(account, positions, deps.catalogue, live), 200);
  });
}

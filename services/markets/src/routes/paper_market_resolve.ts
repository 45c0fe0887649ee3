import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { CONDITION_ID } from "../domain/ref.ts";
import { formatMicro } from "../domain/units.ts";
import { MarketsError } from "../errors.ts";
import { resolveMarket } from "../store/resolution.ts";
import { type MarketsApp, OPERATOR_SECURITY, operatorGuard, type RouteDeps } from "./shared.ts";

const ResolveParams = z.object({
  conditionId: z
    .string()
    .regex(CONDITION_ID, "must be a condition id (0x + 64 hex, any case)")
    .openapi({ param: { name: "conditionId", in: "path" } }),
});

const ResolveBody = z
  .object({ winningOutcome: z.string().min(1).max(200).openapi({ example: "Yes" }) })
  .openapi("ResolveMarket");

/** POST /pm/paper/markets/{conditionId}/resolve: the operator resolves a market; winners get 1 USD a share. */
export function registerPaperMarketResolve(app: MarketsApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/pm/paper/markets/{conditionId}/resolve",
    operationId: "paper_market_resolve",
    tags: ["Paper trading"],
    summary: "Resolve a market (operator)",
    security: OPERATOR_SECURITY,
    middleware: [operatorGuard(deps)],
    request: {
      params: ResolveParams,
      body: { required: true, content: { "application/json": { schema: ResolveBody } } },
    },
    responses: {
      200: jsonResponse(
        z.object({
          conditionId: z.string(),
          winningOutcome: z.string(),
          winningTokenId: z.string(),
          payout: z.string(),
          positionsSettled: z.number(),
          resolvedAt: z.string(),
        }),
        "The market is resolved and every position in it settled",
      ),
      400: errorResponseSpec("Invalid condition id or outcome name"),
      401: errorResponseSpec("Missing or wrong operator token"),
      403: errorResponseSpec("Resolution is disabled (no operator token configured)"),
      404: errorResponseSpec("Unknown market (MARKET_NOT_FOUND)"),
      409: errorResponseSpec("Already resolved (MARKET_ALREADY_RESOLVED)"),
    },
  });
  app.openapi(route, async (c) => {
    const { conditionId } = c.req.valid("param");
    const { winningOutcome } = c.req.valid("json");
    const market = deps.catalogue.market(conditionId);
    if (!market) throw new MarketsError("MARKET_NOT_FOUND", "No market has this condition id.");
    const winnerIndex = market.outcomes.findIndex(
      (name) => name.toLowerCase() === winningOutcome.toLowerCase(),
    );
    if (winnerIndex < 0) {
      throw new MarketsError("INVALID_OUTCOME", "winningOutcome must name one of the market's outcomes.", {
        outcomes: market.outcomes,
      });
    }
    const resolution = await resolveMarket(deps.db, market, winnerIndex as 0 | 1);
    return c.json(
      {
        conditionId: market.conditionId,
        winningOutcome: market.outcomes[resolution.winnerIndex],
        winningTokenId: resolution.winningTokenId,
        payout: formatMicro(resolution.payoutMicro),
        positionsSettled: resolution.positionsSettled,
        resolvedAt: resolution.resolvedAt.toISOString(),
      },
      200,
    );
  });
}

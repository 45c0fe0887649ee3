import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { parseOrder, slippage } from "../domain/order-input.ts";
import { formatCents, formatMicro, formatMills } from "../domain/units.ts";
import { MarketsError } from "../errors.ts";
import type { ExecutedOrder } from "../store/trading.ts";
import { positionView } from "../views/account.ts";
import { decimalInput, PositionSchema } from "./schemas.ts";
import { BEARER_SECURITY, type MarketsApp, paperAccountGuard, type RouteDeps } from "./shared.ts";

const PlaceOrder = z
  .object({
    tokenId: z.string().regex(/^\d{1,80}$/, "must be a token id (decimal digits)"),
    side: z.enum(["buy", "sell"]),
    amount: decimalInput("100").optional().openapi({ description: "Buy only: USD to spend" }),
    shares: decimalInput("250.5")
      .optional()
      .openapi({ description: "Shares to buy or sell, in lots of 0.01" }),
    limitPrice: decimalInput("0.45")
      .optional()
      .openapi({ description: "Worst price to fill at (0.01..0.99)" }),
  })
  .openapi("PlaceOrder");

const FillSchema = z.object({ price: z.string(), shares: z.string(), cost: z.string() });

const OrderResult = z
  .object({
    order: z.object({
      id: z.string(),
      tokenId: z.string(),
      conditionId: z.string(),
      outcome: z.string(),
      side: z.enum(["buy", "sell"]),
      status: z.enum(["filled", "partially_filled"]),
      requested: z.object({ amount: z.string().nullable(), shares: z.string().nullable() }),
      filledShares: z.string(),
      notional: z.string().openapi({ description: "USD paid (buy) or received (sell)" }),
      averagePrice: z.string(),
      bestPrice: z.string(),
      worstPrice: z.string(),
      slippage: z
        .string()
        .openapi({ description: "Average price minus best price, against the trader, USD/share" }),
      slippageBps: z.number(),
      fills: z.array(FillSchema),
      createdAt: z.string(),
    }),
    market: z.object({ priceBefore: z.string(), priceAfter: z.string() }),
    balance: z.string(),
    position: PositionSchema,
  })
  .openapi("OrderResult");

function orderView(executed: ExecutedOrder) {
  const { order, fills, token } = executed;
  const first = fills[0] as { cents: number };
  const last = fills.at(-1) as { cents: number };
  const slip = slippage(order.side, first.cents, executed.notionalMicro, executed.sharesMicro);
  return {
    id: executed.id,
    tokenId: token.market.clobTokenIds[token.outcomeIndex],
    conditionId: token.market.conditionId,
    outcome: token.market.outcomes[token.outcomeIndex],
    side: order.side,
    status: executed.status,
    requested: {
      amount: "amountMicro" in order ? formatMicro(order.amountMicro) : null,
      shares: "sharesMicro" in order ? formatMicro(order.sharesMicro) : null,
    },
    filledShares: formatMicro(executed.sharesMicro),
    notional: formatMicro(executed.notionalMicro),
    averagePrice: formatMicro(slip.averageMicro),
    bestPrice: formatCents(first.cents),
    worstPrice: formatCents(last.cents),
    slippage: formatMicro(slip.slippageMicro),
    slippageBps: slip.slippageBps,
    fills: fills.map((fill) => ({
      price: formatCents(fill.cents),
      shares: formatMicro(fill.sharesMicro),
      cost: formatMicro(fill.costMicro),
    })),
    createdAt: executed.createdAt.toISOString(),
  };
}

/** POST /pm/paper/orders: a market order that walks the book, moves the price and reports slippage. */
export function registerPaperOrderCreate(app: MarketsApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/pm/paper/orders",
    operationId: "paper_order_create",
    tags: ["Paper trading"],
    summary: "Place a paper market order",
    description:
      "Buys by USD amount or by shares, or sells shares, filling against the book from the best price (fill-and-kill).",
    security: BEARER_SECURITY,
    middleware: paperAccountGuard(deps),
    request: { body: { required: true, content: { "application/json": { schema: PlaceOrder } } } },
    responses: {
      200: jsonResponse(OrderResult, "The fills, the price move and the new position"),
      400: errorResponseSpec("Invalid order (VALIDATION_FAILED, INVALID_ORDER)"),
      401: errorResponseSpec("Missing or invalid account token"),
      404: errorResponseSpec("Unknown token (TOKEN_NOT_FOUND)"),
      409: errorResponseSpec("MARKET_CLOSED, INSUFFICIENT_FUNDS, INSUFFICIENT_SHARES or NO_LIQUIDITY"),
    },
  });
  app.openapi(route, async (c) => {
    const account = c.var.caller;
    const body = c.req.valid("json");
    const parsed = parseOrder(body);
    if (parsed.kind === "invalid") throw new MarketsError("INVALID_ORDER", parsed.message);
    const token = deps.catalogue.token(body.tokenId);
    if (!token) throw new MarketsError("TOKEN_NOT_FOUND", "No outcome token has this id.");
    const executed = await deps.trading.place(account.id, token, parsed.order);
    const live = await deps.states.one(token.market.conditionId);
    const tokenId = token.market.clobTokenIds[token.outcomeIndex];
    return c.json(
      {
        order: orderView(executed),
        market: {
          priceBefore: formatMills(executed.priceBeforeMills),
          priceAfter: formatMills(executed.priceAfterMills),
        },
        balance: formatMicro(executed.balanceMicro),
        position: positionView(
          {
            ...executed.position,
            tokenId,
            conditionId: token.market.conditionId,
            updatedAt: executed.createdAt,
          },
          deps.catalogue,
          live!,
        ),
      },
      200,
    );
  });
}

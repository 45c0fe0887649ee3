import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { MarketsError } from "../errors.ts";
import { bookView } from "../views/book.ts";
import { BookSchema } from "./schemas.ts";
import type { MarketsApp, RouteDeps } from "./shared.ts";

const BookQuery = z.object({
  token_id: z
    .string()
    .regex(/^\d{1,80}$/, "must be a token id (decimal digits)")
    .openapi({ description: "CLOB token id of one outcome" }),
});

/** GET /pm/book: one outcome token's order book, in the CLOB shape. */
export function registerPmBook(app: MarketsApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "get",
    path: "/pm/book",
    operationId: "pm_book",
    tags: ["Events"],
    summary: "Order book of one outcome token",
    request: { query: BookQuery },
    responses: {
      200: jsonResponse(
        BookSchema,
        "Bids ascending and asks descending (best last), prices on the 0.01 grid",
      ),
      400: errorResponseSpec("Not a token id"),
      404: errorResponseSpec("Unknown token (TOKEN_NOT_FOUND)"),
    },
  });
  app.openapi(route, async (c) => {
    const { token_id: tokenId } = c.req.valid("query");
    const token = deps.catalogue.token(tokenId);
    if (!token) throw new MarketsError("TOKEN_NOT_FOUND", "No outcome token has this id.");
    const live = await deps.states.one(token.market.conditionId);
    return c.json(bookView(token, live!), 200);
  });
}

import { ApiError, requestHeader, type ServiceApp } from "@app/core";
import type { Database } from "@app/db";
import {
  type ApiKeyMiddleware,
  apiKeyAuth,
  apiKeyHash,
  bearerChallenge,
  bearerToken,
  sameKeyHash,
} from "@app/edge";
import type { MiddlewareHandler } from "hono";
import type { Catalogue } from "../catalogue/catalogue.ts";
import type { PaperAccount, PaperAccountStore } from "../store/accounts.ts";
import type { MarketStateStore } from "../store/market-state.ts";
import type { TradingStore } from "../store/trading.ts";

/** What the markets routes are built from. */
export type RouteDeps = {
  db: Database;
  catalogue: Catalogue;
  states: MarketStateStore;
  accounts: PaperAccountStore;
  trading: TradingStore;
  startingBalanceMicro: bigint;
  operatorToken?: string;
};

export type MarketsApp = ServiceApp;

export const BEARER_SECURITY = [{ paperAccount: [] }];
export const OPERATOR_SECURITY = [{ operator: [] }];

/** The realm of the paper-trading tokens' `WWW-Authenticate` challenge. */
const REALM = "paper";

/**
 * Route middleware: the paper account whose token the request carries as `Authorization: Bearer`
 * (401 otherwise), checked before the body is read or validated; the route reads it as
 * `c.var.caller`.
 */
export function paperAccountGuard(deps: RouteDeps): ApiKeyMiddleware<PaperAccount> {
  return apiKeyAuth({
    source: { bearer: { realm: REALM } },
    verify: (token) => deps.accounts.authenticate(token),
    messages: {
      missing: "Send the paper account's token as `Authorization: Bearer <token>`.",
      invalid: "The account token is not valid.",
    },
  });
}

/** Refuses the request unless it carries the operator token (compared in constant time). */
export function requireOperator(authorization: string | undefined, deps: RouteDeps): void {
  const token = bearerToken(authorization);
  if (!deps.operatorToken) {
    throw new ApiError("FORBIDDEN", "Market resolution is disabled: MARKETS_OPERATOR_TOKEN is not set.");
  }
  if (!token || !sameKeyHash(apiKeyHash(token), apiKeyHash(deps.operatorToken))) {
    throw new ApiError(
      "UNAUTHORIZED",
      "Resolving a market needs the operator token as `Authorization: Bearer <token>`.",
      {},
      bearerChallenge(REALM),
    );
  }
}

/** Route middleware: the operator token (see {@link requireOperator}), checked before the body is read. */
export function operatorGuard(deps: RouteDeps): MiddlewareHandler {
  return async (c, next) => {
    requireOperator(requestHeader(c, "authorization"), deps);
    await next();
  };
}

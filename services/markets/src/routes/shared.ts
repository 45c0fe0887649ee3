import { createHash, timingSafeEqual } from "node:crypto";
import { ApiError, requestHeader, type ServiceApp } from "@app/core";
import type { Database } from "@app/db";
import type { MiddlewareHandler } from "hono";
import type { Catalogue } from "../catalogue/catalogue.ts";
import type { Account, AccountStore } from "../store/accounts.ts";
import type { MarketStateStore } from "../store/market-state.ts";
import type { TradingStore } from "../store/trading.ts";

/** What the markets routes are built from. */
export type RouteDeps = {
  db: Database;
  catalogue: Catalogue;
  states: MarketStateStore;
  accounts: AccountStore;
  trading: TradingStore;
  startingBalanceMicro: bigint;
  operatorToken?: string;
};

export type MarketsApp = ServiceApp;

export const BEARER_SECURITY = [{ paperAccount: [] }];
export const OPERATOR_SECURITY = [{ operator: [] }];

/** The token of an `Authorization: Bearer <token>` header. */
function bearerToken(header: string | undefined): string | undefined {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

function unauthorized(message: string): ApiError {
  return new ApiError("UNAUTHORIZED", message, {}, { "WWW-Authenticate": 'Bearer realm="paper"' });
}

/** The paper account whose token the request carries; 401 otherwise. */
export async function authenticatedAccount(
  authorization: string | undefined,
  deps: RouteDeps,
): Promise<Account> {
  const token = bearerToken(authorization);
  if (!token) throw unauthorized("Send the paper account's token as `Authorization: Bearer <token>`.");
  const account = await deps.accounts.authenticate(token);
  if (!account) throw unauthorized("The account token is not valid.");
  return account;
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Refuses the request unless it carries the operator token (compared in constant time). */
export function requireOperator(authorization: string | undefined, deps: RouteDeps): void {
  const token = bearerToken(authorization);
  if (!deps.operatorToken) {
    throw new ApiError("FORBIDDEN", "Market resolution is disabled: MARKETS_OPERATOR_TOKEN is not set.");
  }
  if (!token || !timingSafeEqual(digest(token), digest(deps.operatorToken))) {
    throw unauthorized("Resolving a market needs the operator token as `Authorization: Bearer <token>`.");
  }
}

const accounts = new WeakMap<Request, Account>();

/**
 * Route middleware: the paper account whose token the request carries (401 otherwise), checked
 * before the body is read or validated; the route reads it with {@link paperAccountOf}.
 */
export function paperAccountGuard(deps: RouteDeps): MiddlewareHandler {
  return async (c, next) => {
    accounts.set(c.req.raw, await authenticatedAccount(requestHeader(c, "authorization"), deps));
    await next();
  };
}

/** The account {@link paperAccountGuard} accepted for this request. */
export function paperAccountOf(c: { req: { raw: Request } }): Account {
  const account = accounts.get(c.req.raw);
  if (!account) throw new Error("The route has no paper account guard.");
  return account;
}

/** Route middleware: the operator token (see {@link requireOperator}), checked before the body is read. */
export function operatorGuard(deps: RouteDeps): MiddlewareHandler {
  return async (c, next) => {
    requireOperator(requestHeader(c, "authorization"), deps);
    await next();
  };
}

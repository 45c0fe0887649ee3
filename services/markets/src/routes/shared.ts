import { createHash, timingSafeEqual } from "node:crypto";
import { ApiError, type ServiceApp } from "@app/core";
import type { Database } from "@app/db";
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

import type { ServiceApp } from "@app/core";
import type { Database } from "@app/db";
import { silentLogger } from "@app/testkit";
import { type Catalogue, seededCatalogue } from "../src/catalogue/catalogue.ts";
import type { CatalogueMarket } from "../src/catalogue/types.ts";
import { MICRO } from "../src/domain/units.ts";
import { buildMarketsApp } from "../src/service.ts";

export const OPERATOR_TOKEN = "operator-token-for-tests-0123456789abcdef";

/** The markets app on a test database, with a known operator token and 10,000 USD accounts. */
export function marketsApp(db: Database, options: { operatorToken?: string | null } = {}): ServiceApp {
  const operatorToken =
    options.operatorToken === null ? undefined : (options.operatorToken ?? OPERATOR_TOKEN);
  return buildMarketsApp({ startingBalanceMicro: 10_000n * MICRO, operatorToken }, db, silentLogger());
}

export const catalogue: Catalogue = seededCatalogue();

/** Open markets of the seed, each used by one test so that tests in a file do not share books. */
export function openMarkets(): CatalogueMarket[] {
  return catalogue.events.flatMap((event) => event.markets).filter((market) => !market.closed);
}

export function closedMarket(): CatalogueMarket {
  const market = catalogue.events.flatMap((event) => event.markets).find((candidate) => candidate.closed);
  if (!market) throw new Error("the seed has no closed market");
  return market;
}

export const jsonBody = (body: unknown, token?: string): RequestInit => ({
  method: "POST",
  headers: {
    "content-type": "application/json",
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  },
  body: JSON.stringify(body),
});

export const bearer = (token: string): RequestInit => ({ headers: { authorization: `Bearer ${token}` } });

/** Opens a paper account and returns its token. */
export async function openAccount(app: ServiceApp): Promise<{ id: string; token: string }> {
  const res = await app.request("/pm/paper/accounts", jsonBody({}));
  const body = (await res.json()) as { account: { id: string }; token: string };
  return { id: body.account.id, token: body.token };
}

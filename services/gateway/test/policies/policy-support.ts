import type { Database } from "@app/db";
import { loadGatewayConfig } from "../../src/config.ts";
import type { PolicyChange } from "../../src/domain/key-policy.ts";
import { AccountStore } from "../../src/store/accounts.ts";
import { KeyPolicyStore } from "../../src/store/key-policies.ts";
import type { TestAccount } from "../support/harness.ts";

/** The prediction-market tool, as policies and prices name it. */
export const MARKETS_EVENT = "markets /pm/event GET";

/** The post-list tool, as policies and prices name it. */
export const LIST_POSTS = "publisher /api/v1/posts GET";

/** The shop tool, as policies and prices name it. */
export const SHOP_AVAILABILITY = "shop /api/shops/agent-availability GET";

/**
 * Prices as an operator sets them (`GATEWAY_TOOL_PRICES`, read by the gateway's own config): the
 * markets event tool at 0.01 USD a run (the priced tool these tests run until a cap), unless told
 * otherwise.
 */
export function configuredPrices(prices: Record<string, string> = { [MARKETS_EVENT]: "0.01" }) {
  return loadGatewayConfig({ GATEWAY_TOOL_PRICES: JSON.stringify(prices) }).toolPrices;
}

/** A run of the markets event tool. */
export const marketsRun = (ref = "will-it-rain") => ({
  provider: "markets",
  endpoint: "/pm/event",
  method: "GET",
  input: { queryParams: { ref } },
});

/** A run of the post-list tool. */
export const listPostsRun = () => ({
  provider: "publisher",
  endpoint: "/api/v1/posts",
  method: "GET",
  input: {},
});

/** The shop tool, named as run and inspect name it. */
export const SHOP_TOOL = { provider: "shop", endpoint: "/api/shops/agent-availability", method: "GET" };

/** A second key of the account, with `change` as its policy (as the CLI or the route would set it). */
export async function keyWithPolicy(
  db: Database,
  account: Pick<TestAccount, "accountId">,
  change: PolicyChange,
): Promise<TestAccount> {
  const issued = await new AccountStore(db).issueKey(account.accountId, "limited");
  await new KeyPolicyStore(db).change(issued.id, change);
  return { accountId: account.accountId, keyId: issued.id, key: issued.key };
}

/** What a key spent per the ledger: its runs' charges less their refunds, in micro-USD. */
export async function ledgerSpendOf(db: Database, keyId: string): Promise<bigint> {
  const [row] = await db.query<{ spent: string }>(
    `SELECT COALESCE(-SUM(l.amount_micro), 0)::text AS spent
     FROM gateway.ledger l JOIN gateway.runs r ON r.id = l.run_id
     WHERE r.key_id = $1 AND l.kind IN ('run', 'refund')`,
    [keyId],
  );
  return BigInt(row?.spent ?? "0");
}

/** The key's spend counters of today, by tool ('' for its total), in micro-USD. */
export async function spendCounters(db: Database, keyId: string): Promise<Record<string, bigint>> {
  const rows = await db.query<{ tool: string; spent: string }>(
    `SELECT tool, spent_micro::text AS spent FROM gateway.key_daily_spend
     WHERE key_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date`,
    [keyId],
  );
  return Object.fromEntries(rows.map((row) => [row.tool, BigInt(row.spent)]));
}

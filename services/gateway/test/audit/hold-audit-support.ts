import type { Database, Queryable } from "@app/db";
import type { NewRun } from "../../src/store/runs.ts";
import type { HeldRunRecord } from "../../src/store/spend-holds.ts";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { configuredPrices, MARKETS_EVENT, SHOP_AVAILABILITY } from "../policies/policy-support.ts";
import {
  bearer,
  gatewayHarness,
  type Harness,
  openAccount,
  postJson,
  type TestAccount,
} from "../support/harness.ts";

/** One cent, in micro-USD. */
export const CENT = 10_000n;

/** A priced run of the markets event tool at one cent. */
export function centRun(accountId: string, keyId: string, id: string): NewRun {
  return { id, accountId, keyId, provider: "markets", endpoint: "/pm/event", method: "GET", costMicro: CENT };
}

/** A run's record as its finish hands it to the hold. */
export function finishedRecord(run: NewRun, refunded = false): HeldRunRecord {
  return {
    id: run.id,
    provider: run.provider,
    endpoint: run.endpoint,
    method: run.method,
    costMicro: run.costMicro,
    outcome: "completed",
    upstreamStatus: 200,
    durationMs: 1,
    startedAt: new Date(),
    finishedAt: new Date(),
    refunded,
  };
}

/** What the database says of an account's money: its balance, what is held of it, and its holds left. */
export async function accountHolds(
  db: Queryable,
  accountId: string,
): Promise<{ balance: bigint; held: bigint; holds: number }> {
  const [account] = await db.query<{ balance: string; held: string }>(
    "SELECT balance_micro::text AS balance, held_micro::text AS held FROM gateway.accounts WHERE id = $1",
    [accountId],
  );
  const [holds] = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM gateway.spend_holds WHERE account_id = $1",
    [accountId],
  );
  return {
    balance: BigInt(account?.balance ?? "-1"),
    held: BigInt(account?.held ?? "-1"),
    holds: holds?.n ?? -1,
  };
}

/** What the database says of an account: balance, held, holds left, and its ledger's net run charges. */
export async function accountBooks(db: Queryable, accountId: string) {
  const money = await accountHolds(db, accountId);
  const [ledger] = await db.query<{ sum: string; charges: number }>(
    `SELECT COALESCE(sum(amount_micro), 0)::text AS sum, count(*) FILTER (WHERE kind = 'run')::int AS charges
     FROM gateway.ledger WHERE account_id = $1`,
    [accountId],
  );
  return {
    ...money,
    ledgerSum: BigInt(ledger?.sum ?? "0"),
    charges: ledger?.charges ?? -1,
  };
}

/**
 * A database whose hold settles (the statement that writes the ledger from `gateway.spend_holds`)
 * commit but whose answer is lost, for the settles `lose` picks (by their parameters).
 */
export function losingSettleAnswers(db: Database, lose: (params: unknown[]) => boolean): Database {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property !== "query") return Reflect.get(target, property, receiver);
      return async (text: string, params?: unknown[]) => {
        const rows = await target.query(text, params);
        const isSettle =
          text.includes("gateway.spend_holds h") && text.includes("INSERT INTO gateway.ledger");
        if (isSettle && lose(params ?? [])) throw new Error("connection terminated unexpectedly");
        return rows;
      };
    },
  });
}

/** One US dollar, in micro-USD. */
const ONE_USD = 1_000_000n;

/** A run of the shop tool, priced apart from the markets event tool. */
const shopRun = {
  provider: "shop",
  endpoint: "/api/shops/agent-availability",
  method: "GET",
  input: { queryParams: { service: "haircut", from: "2026-12-01", days: 1, partySize: 1 } },
};

/**
 * The gateway with the markets event tool at 0.01 USD and the shop tool at `shopPrice`, every
 * upstream answering 200, and an account of 1 USD: `use` runs against them, and the gateway is
 * closed after, whatever `use` does. For the audits of how a held run and an idempotent run of
 * one account meet on one instance.
 */
export async function withPricedShop(
  db: Database,
  shopPrice: string,
  use: (h: Harness, owner: TestAccount) => Promise<void>,
): Promise<void> {
  const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
  const h = gatewayHarness(db, {
    upstream,
    toolPrices: configuredPrices({ [MARKETS_EVENT]: "0.01", [SHOP_AVAILABILITY]: shopPrice }),
  });
  try {
    await use(h, await openAccount(db, ONE_USD));
  } finally {
    await h.close();
  }
}

/** The shop run with an idempotency key (and the upstream key the shop tool takes), by the key's owner. */
export function idempotentShopRun(h: Harness, key: string): Promise<Response> {
  const headers = { ...bearer(key), "x-upstream-key": "shop-key", "idempotency-key": "shop-once" };
  return postJson(h.app, "/v1/run", shopRun, headers);
}

/**
 * The demo gateway account for `npm start`. Local use only: the launcher and tests import it
 * (`@app/gateway/demo`); production code never does.
 */
import type { Database } from "@app/db";
import type { DemoSeeder } from "@app/runtime";
import { formatUsd, MICRO_PER_USD } from "./domain/money.ts";
import { AccountStore } from "./store/accounts.ts";
import { addToBalance } from "./store/ledger.ts";

export const DEMO_ACCOUNT_ID = "acct_demo";

/** The label of the demo account's launcher key: each seeding revokes the keys bearing it. */
export const DEMO_KEY_LABEL = "demo";

/** What the demo account starts with. */
export const DEMO_CREDIT_MICRO = 10n * MICRO_PER_USD;

export type GatewayDemo = { accountId: string; gatewayKey: string; balance: string };

/**
 * Seeds the demo account: created once with 10 USD of credit (one ledger row). A key cannot be
 * read back from its hash, so every call issues a fresh demo key and revokes the previous one:
 * the key returned always works, and a key printed by an earlier start stops working. Concurrent
 * calls are serialised by an advisory lock.
 */
export async function seedDemoAccount(db: Database): Promise<GatewayDemo> {
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('gateway.demo'))");
    const accounts = new AccountStore(tx);
    let account = await accounts.get(DEMO_ACCOUNT_ID);
    if (!account) {
      await accounts.create("Demo account", DEMO_ACCOUNT_ID);
      await addToBalance(tx, {
        accountId: DEMO_ACCOUNT_ID,
        amountMicro: DEMO_CREDIT_MICRO,
        kind: "credit",
        note: "demo credit",
      });
      account = await accounts.get(DEMO_ACCOUNT_ID);
    }
    await accounts.revokeLabelled(DEMO_ACCOUNT_ID, DEMO_KEY_LABEL, new Date());
    const issued = await accounts.issueKey(DEMO_ACCOUNT_ID, DEMO_KEY_LABEL);
    return {
      accountId: DEMO_ACCOUNT_ID,
      gatewayKey: issued.key,
      balance: formatUsd(account?.balanceMicro ?? 0n),
    };
  });
}

/** The gateway's demo for `npm start`: the demo account and a fresh key. */
export const seedDemo: DemoSeeder = ({ db }) => seedDemoAccount(db);

import type { Database, Queryable } from "@app/db";
import { addToBalance, debitIfCovered } from "./ledger.ts";

/** How a run ended, as the usage record keeps it. */
export type RunOutcome =
  | "completed"
  | "upstream_unavailable"
  | "upstream_timeout"
  | "upstream_response_too_large";

/** The run about to call its upstream. */
export type NewRun = {
  id: string;
  accountId: string;
  keyId: string;
  provider: string;
  endpoint: string;
  method: string;
  costMicro: bigint;
};

export type StartedRun =
  | { kind: "started"; balanceMicro: bigint }
  | { kind: "insufficient"; balanceMicro: bigint };

/** One usage record, for `usage`. */
export type RunRecord = {
  id: string;
  provider: string;
  endpoint: string;
  method: string;
  outcome: RunOutcome | "running";
  upstreamStatus: number | null;
  costMicro: bigint;
  durationMs: number | null;
  createdAt: Date;
};

/** Usage records and the money they move. */
export class RunStore {
  constructor(private readonly db: Database) {}

  /**
   * Charges the run's price (a conditional debit: never below zero) and writes its usage record
   * and ledger row, in one transaction. A free run writes a ledger row of 0 and needs no balance.
   */
  start(run: NewRun): Promise<StartedRun> {
    return this.db.transaction(async (tx) => {
      const balance = await debitIfCovered(tx, run.accountId, run.costMicro);
      if (balance === undefined)
        return { kind: "insufficient", balanceMicro: await balanceOf(tx, run.accountId) };
      await tx.query(
        `INSERT INTO gateway.runs (id, account_id, key_id, provider, endpoint, method, cost_micro)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [run.id, run.accountId, run.keyId, run.provider, run.endpoint, run.method, run.costMicro.toString()],
      );
      await tx.query(
        `INSERT INTO gateway.ledger (account_id, kind, amount_micro, balance_after_micro, run_id)
         VALUES ($1, 'run', $2, $3, $4)`,
        [run.accountId, (-run.costMicro).toString(), balance.toString(), run.id],
      );
      return { kind: "started", balanceMicro: balance };
    });
  }

  /**
   * Records how the run ended. With `refund`, its price goes back to the account (a `refund` ledger
   * row; nothing for a free run). Returns the balance after.
   */
  finish(
    run: NewRun,
    result: { outcome: RunOutcome; upstreamStatus: number | null; durationMs: number; refund: boolean },
  ): Promise<bigint> {
    return this.db.transaction(async (tx) => {
      await tx.query(
        `UPDATE gateway.runs SET outcome = $2, upstream_status = $3, duration_ms = $4, finished_at = now()
         WHERE id = $1`,
        [run.id, result.outcome, result.upstreamStatus, result.durationMs],
      );
      if (result.refund && run.costMicro > 0n) {
        const balance = await addToBalance(tx, {
          accountId: run.accountId,
          amountMicro: run.costMicro,
          kind: "refund",
          runId: run.id,
          note: result.outcome,
        });
        if (balance !== undefined) return balance;
      }
      return balanceOf(tx, run.accountId);
    });
  }

  /** An account's latest runs, newest first. */
  async recent(accountId: string, limit = 50): Promise<RunRecord[]> {
    const rows = await this.db.query<Omit<RunRecord, "costMicro"> & { costMicro: string }>(
      `SELECT id, provider, endpoint, method, outcome, upstream_status AS "upstreamStatus",
              cost_micro::text AS "costMicro", duration_ms AS "durationMs", created_at AS "createdAt"
       FROM gateway.runs WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
      [accountId, limit],
    );
    return rows.map((row) => ({ ...row, costMicro: BigInt(row.costMicro) }));
  }
}

/** An account's current balance (0 for an unknown account). */
export async function balanceOf(db: Queryable, accountId: string): Promise<bigint> {
  const [row] = await db.query<{ balance_micro: string }>(
    "SELECT balance_micro::text AS balance_micro FROM gateway.accounts WHERE id = $1",
    [accountId],
  );
  return row ? BigInt(row.balance_micro) : 0n;
}

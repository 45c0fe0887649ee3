import type { Database, Queryable } from "@app/db";
import { noteBalanceChange } from "./balances.ts";
import { chargeRun, type StartedRun } from "./run-charge.ts";

/** How a run ended, as the usage record keeps it. */
export type RunOutcome =
  | "completed"
  | "failed"
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
  /** The `Idempotency-Key` the run was sent with, for the history. */
  idempotencyKey?: string;
  /** The id of the request that ran it (`x-request-id`), for the history. */
  requestId?: string;
  /** The account keeps its runs' outputs: the output answered is written with the finish. */
  keepOutput?: boolean;
};

export type { StartedRun };

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

/** Usage records and the money they move (priced runs; free runs go through `UsageWriter`). */
export class RunStore {
  constructor(private readonly db: Database) {}

  /**
   * Charges a priced run (a conditional debit: never below zero, never past its key's spend caps)
   * and writes its usage record and ledger row, in one statement ({@link chargeRun}). A free run
   * needs no charge and no balance: it is recorded once finished, by the `UsageWriter`.
   */
  async start(run: NewRun): Promise<StartedRun> {
    const started = await chargeRun(this.db, run);
    if (started.kind === "started") noteBalanceChange();
    return started;
  }

  /**
   * Records how a priced run ended, in one statement. With `refund`, its price goes back to the
   * account (a `refund` ledger row) and to its key's spend of the day it was charged (in total and
   * on its tool). Only a run still `running` is finished (and refunded), so a
   * second finish of the same run (a refund after a finish whose answer was lost) changes nothing.
   * Returns the balance after. `output` (the output answered, for an account that keeps them) is
   * written with the outcome.
   */
  async finish(
    run: NewRun,
    result: {
      outcome: RunOutcome;
      upstreamStatus: number | null;
      durationMs: number;
      refund: boolean;
      output?: string;
    },
  ): Promise<bigint> {
    const refund = result.refund && run.costMicro > 0n;
    const [row] = await this.db.query<{ balance: string | null }>(
      `WITH finished AS (
         UPDATE gateway.runs SET outcome = $2, upstream_status = $3, duration_ms = $4, finished_at = now(),
                                 output = $8
         WHERE id = $1 AND outcome = 'running'
         RETURNING id, key_id, created_at, provider || ' ' || endpoint || ' ' || method AS tool
       ), refund AS (
         UPDATE gateway.accounts SET balance_micro = balance_micro + $6::bigint
         WHERE id = $5 AND $7::boolean AND EXISTS (SELECT 1 FROM finished)
         RETURNING balance_micro
       ), spend_back AS (
         UPDATE gateway.key_daily_spend s SET spent_micro = GREATEST(0, s.spent_micro - $6::bigint)
         FROM finished, refund
         WHERE s.key_id = finished.key_id AND s.day = (finished.created_at AT TIME ZONE 'UTC')::date
           AND s.tool IN ('', finished.tool)
       ), entry AS (
         INSERT INTO gateway.ledger (account_id, kind, amount_micro, balance_after_micro, run_id, note)
         SELECT $5, 'refund', $6::bigint, refund.balance_micro, $1, $2 FROM refund
       )
       SELECT COALESCE((SELECT balance_micro FROM refund),
                       (SELECT balance_micro FROM gateway.accounts WHERE id = $5))::text AS balance`,
      [
        run.id,
        result.outcome,
        result.upstreamStatus,
        result.durationMs,
        run.accountId,
        run.costMicro.toString(),
        refund,
        result.output ?? null,
      ],
    );
    if (refund) noteBalanceChange();
    return BigInt(row?.balance ?? "0");
  }

  /**
   * Priced runs still `running` that began before `startedBefore`: a run no instance can still be
   * finishing (its upstream deadline long past), left by a crash or by a refund that could not be
   * written. Oldest first, at most `limit`.
   */
  async abandoned(startedBefore: Date, limit = 100): Promise<Array<NewRun & { createdAt: Date }>> {
    const rows = await this.db.query<Omit<NewRun, "costMicro"> & { costMicro: string; createdAt: Date }>(
      `SELECT id, account_id AS "accountId", key_id AS "keyId", provider, endpoint, method,
              cost_micro::text AS "costMicro", created_at AS "createdAt"
       FROM gateway.runs WHERE outcome = 'running' AND created_at < $1
       ORDER BY created_at LIMIT $2`,
      [startedBefore, limit],
    );
    return rows.map((row) => ({ ...row, costMicro: BigInt(row.costMicro) }));
  }

  /** How each of these runs stands (`running` until finished), by id; a run never recorded is absent. */
  async outcomes(ids: readonly string[]): Promise<Map<string, RunOutcome | "running">> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.query<{ id: string; outcome: RunOutcome | "running" }>(
      "SELECT id, outcome FROM gateway.runs WHERE id = ANY($1::text[])",
      [ids],
    );
    return new Map(rows.map((row) => [row.id, row.outcome]));
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

import type { Queryable } from "@app/db";
import { toolName } from "../domain/key-policy.ts";
import type { NewRun } from "./runs.ts";
import {
  REFUSAL_COLUMNS,
  type RefusalRow,
  refusalCases,
  refusalOf,
  type SpendRefusal,
  standingCtes,
  withCountersPrepared,
} from "./spend-standing.ts";

/** How the charge of a priced run went. */
export type StartedRun = { kind: "started"; balanceMicro: bigint } | SpendRefusal;

/**
 * The charge of a priced run, in one statement: where the key stands is read under the account's
 * and the counters' locks (`spend-standing.ts`); the run is charged only if the key's daily cap and
 * its cap on this tool each hold this price on top of today's spend and what instances hold of it
 * (`spend-holds.ts`), and the balance less what is held holds it. Then, and only then, the balance
 * is debited, both counters grow by the price, and the usage record and ledger row are written.
 */
const CHARGE = `WITH ${standingCtes({ account: "$2", key: "$3", tool: "$8::text" })}, decision AS (
    SELECT standing.*, CASE ${refusalCases("$7::bigint")} ELSE 'started' END AS kind
    FROM standing
  ), debit AS (
    UPDATE gateway.accounts SET balance_micro = balance_micro - $7::bigint
    WHERE id = $2 AND (SELECT kind FROM decision) = 'started'
    RETURNING balance_micro
  ), counted AS (
    INSERT INTO gateway.key_daily_spend AS s (key_id, day, tool, spent_micro)
    SELECT $3, today.day, counter.tool, $7::bigint FROM debit, today, (VALUES (''), ($8::text)) AS counter (tool)
    ON CONFLICT (key_id, day, tool) DO UPDATE SET spent_micro = s.spent_micro + EXCLUDED.spent_micro
  ), started AS (
    INSERT INTO gateway.runs (id, account_id, key_id, provider, endpoint, method, cost_micro,
      idempotency_key, request_id)
    SELECT $1, $2, $3, $4, $5, $6, $7::bigint, $9, $10 FROM debit
    RETURNING id
  ), entry AS (
    INSERT INTO gateway.ledger (account_id, kind, amount_micro, balance_after_micro, run_id)
    SELECT $2, 'run', -($7::bigint), debit.balance_micro, started.id FROM debit, started
  )
  SELECT kind, (SELECT balance_micro FROM debit)::text AS debited, ${REFUSAL_COLUMNS}
  FROM decision`;

type ChargeRow = RefusalRow & { debited: string | null };

/**
 * Charges a priced run without ever passing its key's spend caps or taking the balance below
 * zero, whatever runs go concurrently ({@link CHARGE}); a key's first capped charge of a day (or
 * of a tool) creates its counters first. Nothing is charged or written unless every check holds.
 */
export async function chargeRun(db: Queryable, run: NewRun): Promise<StartedRun> {
  const tool = toolName(run);
  const row = await withCountersPrepared(db, { keyId: run.keyId, tool }, async () => {
    const [answer] = await db.query<ChargeRow>(CHARGE, [
      run.id,
      run.accountId,
      run.keyId,
      run.provider,
      run.endpoint,
      run.method,
      run.costMicro.toString(),
      tool,
      run.idempotencyKey ?? null,
      run.requestId ?? null,
    ]);
    return answer;
  });
  if (!row) return { kind: "insufficient", balanceMicro: 0n };
  return refusalOf(row) ?? { kind: "started", balanceMicro: BigInt(row.debited ?? row.balance) };
}

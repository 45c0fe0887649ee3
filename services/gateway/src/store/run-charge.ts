import type { Queryable } from "@app/db";
import { toolName } from "../domain/key-policy.ts";
import type { NewRun } from "./runs.ts";

/** How the charge of a priced run went. */
export type StartedRun =
  | { kind: "started"; balanceMicro: bigint }
  | { kind: "insufficient"; balanceMicro: bigint }
  | {
      kind: "capped";
      /** Which cap the run would pass: the key's daily total, or its daily cap on this tool. */
      cap: "daily" | "tool";
      capMicro: bigint;
      /** What the key spent today, in total or on this tool. */
      spentMicro: bigint;
      balanceMicro: bigint;
      /** The UTC day the spend counts in (`YYYY-MM-DD`, the database's clock). */
      day: string;
    };

/**
 * The charge of a priced run, in one statement: the account's row is locked first (so every
 * charge and refund of the account's keys goes one after the other), then the key's spend
 * counters of today (its total, `tool` '', and this tool's) are locked and read as they now
 * stand; the run is charged only if the key's daily cap and its cap on this tool (read from its
 * policy in the same statement) each hold this price on top of today's spend and what instances
 * hold of it (`spend-holds.ts`), and the balance less what is held holds it. Then, and only
 * then, the balance is debited, both counters grow by the price, and the usage record and ledger
 * row are written. A capped counter that has no row yet today answers
 * `unprepared` (the statement could not lock what does not exist): the caller creates the rows and
 * charges again.
 */
const CHARGE = `WITH account AS (
    SELECT balance_micro, held_micro FROM gateway.accounts WHERE id = $2 FOR UPDATE
  ), today AS (
    SELECT (now() AT TIME ZONE 'UTC')::date AS day
  ), spend AS (
    SELECT s.tool, s.spent_micro + s.held_micro AS spent_micro FROM gateway.key_daily_spend s
    WHERE s.key_id = $3 AND s.day = (SELECT day FROM today) AND s.tool IN ('', $8::text)
      AND EXISTS (SELECT 1 FROM account)
    FOR UPDATE
  ), standing AS (
    SELECT account.balance_micro AS balance, account.balance_micro - account.held_micro AS available,
      (SELECT daily_cap_micro FROM gateway.key_policies WHERE key_id = $3) AS daily_cap,
      (SELECT cap_micro FROM gateway.key_tool_caps WHERE key_id = $3 AND tool = $8::text) AS tool_cap,
      (SELECT spent_micro FROM spend WHERE tool = '') AS daily_spent,
      (SELECT spent_micro FROM spend WHERE tool = $8::text) AS tool_spent
    FROM account
  ), decision AS (
    SELECT standing.*, CASE
      WHEN (daily_cap IS NOT NULL AND daily_spent IS NULL) OR (tool_cap IS NOT NULL AND tool_spent IS NULL)
        THEN 'unprepared'
      WHEN daily_cap IS NOT NULL AND daily_spent + $7::bigint > daily_cap THEN 'daily'
      WHEN tool_cap IS NOT NULL AND tool_spent + $7::bigint > tool_cap THEN 'tool'
      WHEN available < $7::bigint THEN 'insufficient'
      ELSE 'started' END AS kind
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
  SELECT kind, (CASE WHEN kind = 'insufficient' THEN available ELSE balance END)::text AS balance, (SELECT balance_micro FROM debit)::text AS debited,
    daily_cap::text AS "dailyCap", tool_cap::text AS "toolCap",
    daily_spent::text AS "dailySpent", tool_spent::text AS "toolSpent", (SELECT day FROM today)::text AS day
  FROM decision`;

/** Creates today's zero counters of a key (its total and this tool's) that do not exist yet. */
const PREPARE = `INSERT INTO gateway.key_daily_spend (key_id, day, tool, spent_micro)
  SELECT $1, (now() AT TIME ZONE 'UTC')::date, counter.tool, 0 FROM (VALUES (''), ($2::text)) AS counter (tool)
  ON CONFLICT DO NOTHING`;

type ChargeRow = {
  kind: "unprepared" | "daily" | "tool" | "insufficient" | "started";
  balance: string;
  debited: string | null;
  dailyCap: string | null;
  toolCap: string | null;
  dailySpent: string | null;
  toolSpent: string | null;
  day: string;
};

/** Charges can find a capped counter missing at most this often in a row (only across a UTC midnight twice). */
const MAX_ATTEMPTS = 3;

/**
 * Charges a priced run without ever passing its key's spend caps or taking the balance below
 * zero, whatever runs go concurrently ({@link CHARGE}); a key's first capped charge of a day (or
 * of a tool) creates its counters first. Nothing is charged or written unless every check holds.
 */
export async function chargeRun(db: Queryable, run: NewRun): Promise<StartedRun> {
  const tool = toolName(run);
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
    const [row] = await db.query<ChargeRow>(CHARGE, [
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
    if (!row) return { kind: "insufficient", balanceMicro: 0n };
    const balanceMicro = BigInt(row.balance);
    switch (row.kind) {
      case "started":
        return { kind: "started", balanceMicro: BigInt(row.debited ?? row.balance) };
      case "insufficient":
        return { kind: "insufficient", balanceMicro };
      case "daily":
      case "tool":
        return {
          kind: "capped",
          cap: row.kind,
          capMicro: BigInt((row.kind === "daily" ? row.dailyCap : row.toolCap) ?? "0"),
          spentMicro: BigInt((row.kind === "daily" ? row.dailySpent : row.toolSpent) ?? "0"),
          balanceMicro,
          day: row.day,
        };
      case "unprepared":
        await db.query(PREPARE, [run.keyId, tool]);
    }
  }
  throw new Error(`The spend counters of key ${run.keyId} could not be prepared for its charge.`);
}

import type { Queryable } from "@app/db";

/**
 * Where a key stands against its account's balance and its spend caps of today, as the statements
 * that charge a run (`run-charge.ts`) and take a hold (`spend-holds.ts`) both check it: written
 * once here, as SQL pieces each statement puts in its own `WITH`, so that the two can never check
 * differently.
 */

/** The parameters (with their casts) that name the account, the key and the tool in a statement. */
export type StandingParams = { account: string; key: string; tool: string };

/**
 * CTEs `account`, `today`, `spend` and `standing`: the account's row is locked first (so every
 * charge, hold, settle and refund of the account's keys goes one after the other), then the key's
 * counters of today (its total, `tool` '', and this tool's), read as they now stand with what
 * instances hold counted as spent. `standing` has `balance` (settled), `available` (less what is
 * held), the key's `daily_cap` and `tool_cap` (null: none), and `daily_spent`, `tool_spent`
 * (null: no counter row yet).
 */
export function standingCtes({ account, key, tool }: StandingParams): string {
  return `account AS (
    SELECT balance_micro, held_micro FROM gateway.accounts WHERE id = ${account} FOR UPDATE
  ), today AS (
    SELECT (now() AT TIME ZONE 'UTC')::date AS day
  ), spend AS (
    SELECT s.tool, s.spent_micro + s.held_micro AS counted FROM gateway.key_daily_spend s
    WHERE s.key_id = ${key} AND s.day = (SELECT day FROM today) AND s.tool IN ('', ${tool})
      AND EXISTS (SELECT 1 FROM account)
    FOR UPDATE
  ), standing AS (
    SELECT account.balance_micro AS balance, account.balance_micro - account.held_micro AS available,
      (SELECT daily_cap_micro FROM gateway.key_policies WHERE key_id = ${key}) AS daily_cap,
      (SELECT cap_micro FROM gateway.key_tool_caps WHERE key_id = ${key} AND tool = ${tool}) AS tool_cap,
      (SELECT counted FROM spend WHERE tool = '') AS daily_spent,
      (SELECT counted FROM spend WHERE tool = ${tool}) AS tool_spent
    FROM account
  )`;
}

/**
 * The `WHEN` arms of a `CASE` over `standing` that refuse `price`: `unprepared` (a capped counter
 * has no row yet today: the statement could not lock what does not exist), `daily` or `tool` (the
 * price would pass that cap), `insufficient` (the balance less what is held is short).
 */
export function refusalCases(price: string): string {
  return `WHEN (daily_cap IS NOT NULL AND daily_spent IS NULL) OR (tool_cap IS NOT NULL AND tool_spent IS NULL)
        THEN 'unprepared'
      WHEN daily_cap IS NOT NULL AND daily_spent + ${price} > daily_cap THEN 'daily'
      WHEN tool_cap IS NOT NULL AND tool_spent + ${price} > tool_cap THEN 'tool'
      WHEN available < ${price} THEN 'insufficient'`;
}

/** The columns of a refusal, for the statement's final `SELECT` over a row with `kind` and `standing`'s columns. */
export const REFUSAL_COLUMNS = `(CASE WHEN kind = 'insufficient' THEN available ELSE balance END)::text AS balance,
    daily_cap::text AS "dailyCap", tool_cap::text AS "toolCap",
    daily_spent::text AS "dailySpent", tool_spent::text AS "toolSpent", (SELECT day FROM today)::text AS day`;

/** A row with {@link REFUSAL_COLUMNS}. */
export type RefusalRow = {
  kind: string;
  balance: string;
  dailyCap: string | null;
  toolCap: string | null;
  dailySpent: string | null;
  toolSpent: string | null;
  day: string;
};

/** Why a statement took nothing: the balance (less what is held) is short, or a cap would be passed. */
export type SpendRefusal =
  | { kind: "insufficient"; balanceMicro: bigint }
  | {
      kind: "capped";
      /** Which cap the run would pass: the key's daily total, or its daily cap on this tool. */
      cap: "daily" | "tool";
      capMicro: bigint;
      /** What the key spent (or instances hold) today, in total or on this tool. */
      spentMicro: bigint;
      balanceMicro: bigint;
      /** The UTC day the spend counts in (`YYYY-MM-DD`, the database's clock). */
      day: string;
    };

/** The refusal a row says (`insufficient`, `daily`, `tool`), or undefined for any other kind. */
export function refusalOf(row: RefusalRow): SpendRefusal | undefined {
  const balanceMicro = BigInt(row.balance);
  if (row.kind === "insufficient") return { kind: "insufficient", balanceMicro };
  if (row.kind !== "daily" && row.kind !== "tool") return undefined;
  const daily = row.kind === "daily";
  return {
    kind: "capped",
    cap: row.kind,
    capMicro: BigInt((daily ? row.dailyCap : row.toolCap) ?? "0"),
    spentMicro: BigInt((daily ? row.dailySpent : row.toolSpent) ?? "0"),
    balanceMicro,
    day: row.day,
  };
}

/** Creates today's zero counters of a key (its total and this tool's) that do not exist yet. */
const PREPARE = `INSERT INTO gateway.key_daily_spend (key_id, day, tool, spent_micro)
  SELECT $1, (now() AT TIME ZONE 'UTC')::date, counter.tool, 0 FROM (VALUES (''), ($2::text)) AS counter (tool)
  ON CONFLICT DO NOTHING`;

/** A statement can find a capped counter missing at most this often in a row (only across a UTC midnight twice). */
const MAX_ATTEMPTS = 3;

/**
 * Runs a statement built on {@link standingCtes} until it answers something else than
 * `unprepared`, creating the key's counters of today in between (a key's first capped charge or
 * hold of a day, or of a tool).
 */
export async function withCountersPrepared<Row extends { kind: string }>(
  db: Queryable,
  counters: { keyId: string; tool: string },
  statement: () => Promise<Row | undefined>,
): Promise<Row | undefined> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
    const row = await statement();
    if (row?.kind !== "unprepared") return row;
    await db.query(PREPARE, [counters.keyId, counters.tool]);
  }
  throw new Error(`The spend counters of key ${counters.keyId} could not be prepared.`);
}

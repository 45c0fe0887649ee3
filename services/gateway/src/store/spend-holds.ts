import type { Database, Queryable } from "@app/db";
import type { RunOutcome } from "./runs.ts";
import {
  REFUSAL_COLUMNS,
  type RefusalRow,
  refusalCases,
  refusalOf,
  type SpendRefusal,
  standingCtes,
  withCountersPrepared,
} from "./spend-standing.ts";

/**
 * Holds on spend (migration 010): an instance takes part of an account's balance and of its key's
 * spend room of the day for one tool, charges priced runs against it in memory, and settles them in
 * batches. Every statement here keeps, for the account and for each of the key's counters of the
 * day, `held + settled spend` within the balance and within the caps, whatever instances do at once.
 */

/** How long a hold lives unless its instance settles it again (each settle renews it). */
export const HOLD_TTL_SECONDS = 30;

/** What a hold request got. */
export type HoldTaken =
  | {
      kind: "held";
      /** What was added to the hold: a whole number of runs' prices, at least one. */
      grantedMicro: bigint;
      /** What the hold holds now, as the database has it, and its version. */
      amountMicro: bigint;
      version: number;
      /** The UTC day (`YYYY-MM-DD`, the database's) whose spend the hold counts. */
      day: string;
      /** The account's settled balance after the hold (holds do not move it). */
      balanceMicro: bigint;
    }
  | SpendRefusal
  /**
   * The hold counts another UTC day's spend than today's (`stale`), or was released by the sweeper
   * while its instance still held under its id (`gone`): its instance must settle it and take a
   * new one under a new id.
   */
  | { kind: "stale" }
  | { kind: "gone" };

/** One priced run answered from a hold, finished, to be written and charged by the hold's settle. */
export type HeldRunRecord = {
  id: string;
  provider: string;
  endpoint: string;
  method: string;
  costMicro: bigint;
  outcome: RunOutcome;
  upstreamStatus: number | null;
  durationMs: number;
  startedAt: Date;
  finishedAt: Date;
  /** Its price went back: its ledger rows are the charge and the refund, and the hold keeps it. */
  refunded: boolean;
  requestId?: string;
  output?: string;
};

/**
 * Takes (or adds to) hold `$1` of account `$2`, key `$3`, tool `$4`, for runs of price `$5`: it
 * wants `$6`, and gets at most half of what is left in the balance and in each cap the key has
 * (but one price when only that is left), in whole prices. The account's row is locked first, then
 * the key's counters of today, as a charge does (`run-charge.ts`), so holds, charges and settles
 * of one account go one after the other. A capped counter with no row yet today answers
 * `unprepared`, a hold of another day `stale`, a hold the instance knows (`$8`) that is no longer
 * there `gone` (a hold is never made again under the id of one the sweeper released).
 */
const TAKE = `WITH ${standingCtes({ account: "$2", key: "$3", tool: "$4::text" })}, known_hold AS (
    SELECT (SELECT day <> (SELECT day FROM today) FROM gateway.spend_holds WHERE id = $1) AS stale,
      $8::boolean AND NOT EXISTS (SELECT 1 FROM gateway.spend_holds WHERE id = $1) AS gone,
      (SELECT amount_micro FROM gateway.spend_holds WHERE id = $1) AS amount
  ), decision AS (
    SELECT standing.*, known_hold.*, CASE
      WHEN gone THEN 'gone'
      WHEN stale THEN 'stale'
      ${refusalCases("$5::bigint")}
      ELSE 'held' END AS kind,
      LEAST($6::bigint, GREATEST($5::bigint, LEAST(available,
        COALESCE(daily_cap - daily_spent, available), COALESCE(tool_cap - tool_spent, available)) / 2))
        / $5::bigint * $5::bigint AS granted
    FROM standing, known_hold
  ), held AS (
    UPDATE gateway.accounts SET held_micro = held_micro + decision.granted
    FROM decision WHERE id = $2 AND decision.kind = 'held'
  ), counted AS (
    INSERT INTO gateway.key_daily_spend AS s (key_id, day, tool, spent_micro, held_micro)
    SELECT $3, today.day, counter.tool, 0, decision.granted
    FROM decision, today, (VALUES (''), ($4::text)) AS counter (tool)
    WHERE decision.kind = 'held'
    ON CONFLICT (key_id, day, tool) DO UPDATE SET held_micro = s.held_micro + EXCLUDED.held_micro
  ), hold AS (
    INSERT INTO gateway.spend_holds AS h (id, account_id, key_id, tool, day, amount_micro, expires_at)
    SELECT $1, $2, $3, $4, today.day, decision.granted, now() + make_interval(secs => $7)
    FROM decision, today WHERE decision.kind = 'held'
    ON CONFLICT (id) DO UPDATE SET amount_micro = h.amount_micro + EXCLUDED.amount_micro,
      expires_at = EXCLUDED.expires_at, version = h.version + 1
    RETURNING h.version
  )
  SELECT kind, granted::text AS granted,
    (COALESCE(amount, 0) + CASE WHEN kind = 'held' THEN granted ELSE 0 END)::text AS amount,
    (SELECT version FROM hold) AS version, ${REFUSAL_COLUMNS}
  FROM decision`;

type TakeRow = RefusalRow & { granted: string; amount: string; version: number | null };

/** The hold to take or add to. */
export type HoldRequest = {
  holdId: string;
  /** The instance holds (or held) under this id already: a missing row is then `gone`, not created. */
  known: boolean;
  accountId: string;
  keyId: string;
  tool: string;
  priceMicro: bigint;
  wantMicro: bigint;
};

/**
 * Takes or adds to a hold ({@link TAKE}): nothing is held unless the balance and every cap of the
 * key hold at least one price on top of what is spent and held already. A key's first capped hold
 * of a day (or of a tool) creates its counters first.
 */
export async function takeHold(db: Queryable, request: HoldRequest): Promise<HoldTaken> {
  const row = await withCountersPrepared(db, request, async () => {
    const [answer] = await db.query<TakeRow>(TAKE, [
      request.holdId,
      request.accountId,
      request.keyId,
      request.tool,
      request.priceMicro.toString(),
      request.wantMicro.toString(),
      HOLD_TTL_SECONDS,
      request.known,
    ]);
    return answer;
  });
  if (!row) return { kind: "insufficient", balanceMicro: 0n };
  if (row.kind === "stale" || row.kind === "gone") return { kind: row.kind };
  return (
    refusalOf(row) ?? {
      kind: "held",
      grantedMicro: BigInt(row.granted),
      amountMicro: BigInt(row.amount),
      version: row.version ?? 0,
      day: row.day,
      balanceMicro: BigInt(row.balance),
    }
  );
}

/**
 * Settles hold `$1` of account `$2`: writes its finished runs (each run's row, its charge in the
 * ledger and, when its price went back, its refund right after), debits the balance by what they
 * cost net and counts it as spent on the hold's day, in total and on its tool, moving it out of
 * what is held. `$3` more of the hold (what its instance will not use) goes back as well, only if
 * the hold is at the version its instance last saw (`$19`): a settle sent again after one whose
 * answer was lost gives nothing back twice. A hold left with nothing ends, any other is renewed for
 * {@link HOLD_TTL_SECONDS}. It answers what the hold holds after it, for its instance to follow. Money moves only for runs this settle
 * writes, so a settle sent again (its answer lost) charges nothing twice. A hold the sweeper has
 * already released (its instance silent past its expiry) moves no money: its runs are written
 * for the history, and were not charged. It answers `over`: how much the key's spend and holds
 * of the hold's day now exceed a cap of the key (lowered since the hold was taken), which the
 * hold's instance gives back from what it does not use.
 */
const SETTLE = `WITH account AS (
    SELECT id FROM gateway.accounts WHERE id = $2 FOR NO KEY UPDATE
  ), hold AS (
    SELECT h.id, h.key_id, h.tool, h.day, h.amount_micro, h.version FROM gateway.spend_holds h
    WHERE h.id = $1 AND EXISTS (SELECT 1 FROM account) FOR UPDATE
  ), limits AS (
    SELECT
      (SELECT daily_cap_micro FROM gateway.key_policies WHERE key_id = hold.key_id) AS daily_cap,
      (SELECT cap_micro FROM gateway.key_tool_caps WHERE key_id = hold.key_id AND tool = hold.tool) AS tool_cap,
      (SELECT spent_micro + held_micro FROM gateway.key_daily_spend
       WHERE key_id = hold.key_id AND day = hold.day AND tool = '') AS daily_counted,
      (SELECT spent_micro + held_micro FROM gateway.key_daily_spend
       WHERE key_id = hold.key_id AND day = hold.day AND tool = hold.tool) AS tool_counted
    FROM hold
  ), input AS (
    SELECT * FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[],
                         $10::int[], $11::int[], $12::timestamptz[], $13::timestamptz[], $14::text[],
                         $15::text[], $16::boolean[], $17::text[])
      WITH ORDINALITY AS t(id, provider, endpoint, method, cost_micro, outcome, upstream_status,
                           duration_ms, created_at, finished_at, request_id, output, refunded, key_id, ord)
  ), written AS (
    INSERT INTO gateway.runs (id, account_id, key_id, provider, endpoint, method, cost_micro, outcome,
                              upstream_status, duration_ms, created_at, finished_at, request_id, output)
    SELECT id, $2, key_id, provider, endpoint, method, cost_micro, outcome, upstream_status, duration_ms,
           created_at, finished_at, request_id, output
    FROM input ORDER BY ord
    ON CONFLICT (id) DO NOTHING
    RETURNING id
  ), charged AS (
    SELECT COALESCE(sum(input.cost_micro) FILTER (WHERE NOT input.refunded), 0)::bigint AS micro
    FROM input WHERE input.id IN (SELECT id FROM written)
  ), freed AS (
    SELECT hold.*, charged.micro AS charged,
      CASE WHEN hold.version = $19::int
        THEN GREATEST(0, LEAST($3::bigint, hold.amount_micro - charged.micro)) ELSE 0 END AS released
    FROM hold, charged
  ), debit AS (
    UPDATE gateway.accounts a SET balance_micro = a.balance_micro - freed.charged,
      held_micro = a.held_micro - freed.charged - freed.released
    FROM freed WHERE a.id = $2
    RETURNING a.balance_micro, freed.charged
  ), counted AS (
    UPDATE gateway.key_daily_spend s SET spent_micro = s.spent_micro + freed.charged,
      held_micro = s.held_micro - freed.charged - freed.released
    FROM freed WHERE s.key_id = freed.key_id AND s.day = freed.day AND s.tool IN ('', freed.tool)
  ), renewed AS (
    UPDATE gateway.spend_holds h SET amount_micro = h.amount_micro - freed.charged - freed.released,
      expires_at = now() + make_interval(secs => $18), version = h.version + 1
    FROM freed WHERE h.id = $1 AND freed.amount_micro > freed.charged + freed.released
    RETURNING h.version
  ), ended AS (
    DELETE FROM gateway.spend_holds h USING freed
    WHERE h.id = $1 AND freed.amount_micro <= freed.charged + freed.released
  ), entries AS (
    SELECT input.ord * 2 AS seq, 'run' AS kind, -input.cost_micro AS amount, input.id AS run_id,
      NULL::text AS note
    FROM input WHERE input.id IN (SELECT id FROM written)
    UNION ALL
    SELECT input.ord * 2 + 1, 'refund', input.cost_micro, input.id, input.outcome
    FROM input WHERE input.refunded AND input.id IN (SELECT id FROM written)
  ), entry AS (
    INSERT INTO gateway.ledger (account_id, kind, amount_micro, balance_after_micro, run_id, note)
    SELECT $2, entries.kind, entries.amount,
      debit.balance_micro + debit.charged + sum(entries.amount) OVER (ORDER BY entries.seq),
      entries.run_id, entries.note
    FROM entries, debit ORDER BY entries.seq
  )
  SELECT (SELECT balance_micro FROM debit)::text AS balance, EXISTS (SELECT 1 FROM hold) AS held,
    (SELECT amount_micro - charged - released FROM freed)::text AS amount,
    (SELECT version FROM renewed) AS version, (SELECT released FROM freed)::text AS released,
    GREATEST(0, (SELECT GREATEST(COALESCE(daily_counted - daily_cap, 0), COALESCE(tool_counted - tool_cap, 0))
                 FROM limits) - COALESCE((SELECT released FROM freed), 0))::text AS over`;

/** The settle of one hold: its finished runs, and how much of the hold to give back. */
export type HoldSettlement = {
  holdId: string;
  accountId: string;
  keyId: string;
  runs: readonly HeldRunRecord[];
  releaseMicro: bigint;
  /** The hold's version as its instance last saw it. */
  version: number;
};

/**
 * What a settle left: the account's balance and what the hold holds (undefined when the hold was
 * gone), and how much a cap is passed.
 */
export type HoldSettled = {
  balanceMicro: bigint | undefined;
  amountMicro: bigint | undefined;
  /** The hold's version after the settle (0 when it ended). */
  version: number;
  /** What it gave back (0 when the hold was at another version than its instance expected). */
  releasedMicro: bigint;
  overMicro: bigint;
};

/**
 * Settles a hold ({@link SETTLE}). The balance is undefined when the hold was no longer there
 * (released by the sweeper: its runs were written, not charged).
 */
export async function settleHold(db: Queryable, settlement: HoldSettlement): Promise<HoldSettled> {
  const runs = settlement.runs;
  const column = <T>(pick: (run: HeldRunRecord) => T) => runs.map(pick);
  const [row] = await db.query<{
    balance: string | null;
    held: boolean;
    amount: string | null;
    version: number | null;
    released: string | null;
    over: string | null;
  }>(SETTLE, [
    settlement.holdId,
    settlement.accountId,
    settlement.releaseMicro.toString(),
    column((run) => run.id),
    column((run) => run.provider),
    column((run) => run.endpoint),
    column((run) => run.method),
    column((run) => run.costMicro.toString()),
    column((run) => run.outcome),
    column((run) => run.upstreamStatus),
    column((run) => run.durationMs),
    column((run) => run.startedAt.toISOString()),
    column((run) => run.finishedAt.toISOString()),
    column((run) => run.requestId ?? null),
    column((run) => run.output ?? null),
    column((run) => run.refunded),
    column(() => settlement.keyId),
    HOLD_TTL_SECONDS,
    settlement.version,
  ]);
  const held = row?.held === true && row.balance !== null;
  return {
    balanceMicro: held ? BigInt(row.balance ?? "0") : undefined,
    amountMicro: held ? BigInt(row?.amount ?? "0") : undefined,
    version: row?.version ?? 0,
    releasedMicro: BigInt(row?.released ?? "0"),
    overMicro: BigInt(row?.over ?? "0"),
  };
}

/**
 * Releases holds past their expiry by the database's clock (their instance stopped without
 * settling them, or could not reach the database for {@link HOLD_TTL_SECONDS}): the balance held
 * goes back to the account (the runs the instance may have answered from it are not charged, not
 * being known), and the key's caps count it as spent (those runs may have been answered: a cap is
 * never passed). The holds' accounts are locked first, in id order, as every other statement on
 * holds locks an account before its holds; a hold renewed meanwhile stays. At most `limit` a call;
 * returns how many were released.
 */
export async function releaseExpiredHolds(db: Database, limit = 100): Promise<number> {
  return db.transaction(async (tx) => {
    const locked = await tx.query<{ id: string }>(
      `SELECT a.id FROM gateway.accounts a
       WHERE a.id IN (SELECT account_id FROM gateway.spend_holds WHERE expires_at < now()
                      ORDER BY expires_at LIMIT $1)
       ORDER BY a.id FOR NO KEY UPDATE`,
      [limit],
    );
    const [row] = await tx.query<{ released: number }>(
      `WITH expired AS (
         DELETE FROM gateway.spend_holds WHERE id IN (
           SELECT id FROM gateway.spend_holds WHERE expires_at < now() ORDER BY expires_at LIMIT $1)
           AND expires_at < now() AND account_id = ANY($2::text[])
         RETURNING account_id, key_id, tool, day, amount_micro
       ), by_account AS (
         UPDATE gateway.accounts a SET held_micro = a.held_micro - e.total
         FROM (SELECT account_id, sum(amount_micro) AS total FROM expired GROUP BY account_id) e
         WHERE a.id = e.account_id
       ), by_counter AS (
         UPDATE gateway.key_daily_spend s SET held_micro = s.held_micro - e.total,
           spent_micro = s.spent_micro + e.total
         FROM (SELECT key_id, day, tool, sum(amount_micro) AS total FROM (
                 SELECT key_id, day, tool, amount_micro FROM expired
                 UNION ALL SELECT key_id, day, '', amount_micro FROM expired) counters
               GROUP BY key_id, day, tool) e
         WHERE s.key_id = e.key_id AND s.day = e.day AND s.tool = e.tool
       )
       SELECT count(*)::int AS released FROM expired`,
      [limit, locked.map((account) => account.id)],
    );
    return row?.released ?? 0;
  });
}

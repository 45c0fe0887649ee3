import type { Queryable } from "@app/db";
import type { LedgerCursor, RunCursor } from "../domain/page-cursor.ts";
import {
  type RunStatus,
  type RunStatusFilter,
  statusOfOutcome,
  UPSTREAM_ERROR_FROM,
} from "../domain/run-status.ts";
import type { RunOutcome } from "./runs.ts";

/** One run as the history shows it: never an input, never an upstream key. */
export type RunHistoryRecord = {
  id: string;
  provider: string;
  endpoint: string;
  method: string;
  keyId: string;
  keyPrefix: string;
  outcome: RunOutcome | "running";
  upstreamStatus: number | null;
  /** The price charged at the start (0 for a free tool). */
  priceMicro: bigint;
  /** What refunds gave back of it. */
  refundedMicro: bigint;
  durationMs: number | null;
  createdAt: Date;
  finishedAt: Date | null;
  idempotencyKey: string | null;
  requestId: string | null;
  chargeLedgerId: string | null;
  refundLedgerId: string | null;
  /** Where the run sits in the listing order (epoch microseconds of `createdAt`). */
  createdMicros: bigint;
  /** The output answered, when the account kept it (detail only); null when not kept. */
  output?: string | null;
};

type RunRow = Omit<RunHistoryRecord, "priceMicro" | "refundedMicro" | "createdMicros"> & {
  priceMicro: string;
  refundedMicro: string;
  createdMicros: string;
};

const toRecord = (row: RunRow): RunHistoryRecord => ({
  ...row,
  priceMicro: BigInt(row.priceMicro),
  refundedMicro: BigInt(row.refundedMicro),
  createdMicros: BigInt(row.createdMicros),
});

/**
 * The runs a key's allowlist lets it see (`$n` a `text[]` of providers and tool names, null for
 * every tool): a key learns nothing of the runs of tools it may not use, its account's or not.
 */
const visibleRuns = (param: string, run = "r") =>
  `(${param}::text[] IS NULL OR ${run}.provider = ANY(${param}::text[])
    OR ${run}.provider || ' ' || ${run}.endpoint || ' ' || ${run}.method = ANY(${param}::text[]))`;

/** A run with its key's prefix and the ids of its ledger rows (the charge, any refund). */
const RUN_SELECT = `SELECT r.id, r.provider, r.endpoint, r.method, r.key_id AS "keyId", k.prefix AS "keyPrefix",
    r.outcome, r.upstream_status AS "upstreamStatus", r.cost_micro::text AS "priceMicro",
    m.refunded::text AS "refundedMicro", r.duration_ms AS "durationMs", r.created_at AS "createdAt",
    r.finished_at AS "finishedAt", r.idempotency_key AS "idempotencyKey", r.request_id AS "requestId",
    m.charge_id AS "chargeLedgerId", m.refund_id AS "refundLedgerId",
    (extract(epoch FROM r.created_at) * 1000000)::int8::text AS "createdMicros"`;

const RUN_FROM = `FROM gateway.runs r
  JOIN gateway.api_keys k ON k.id = r.key_id
  CROSS JOIN LATERAL (
    SELECT (min(l.id) FILTER (WHERE l.kind = 'run'))::text AS charge_id,
           (min(l.id) FILTER (WHERE l.kind = 'refund'))::text AS refund_id,
           COALESCE(sum(l.amount_micro) FILTER (WHERE l.kind = 'refund'), 0) AS refunded
    FROM gateway.ledger l WHERE l.run_id = r.id
  ) m`;

/** A page of an account's runs, newest first, after `after`; `next` when more follow. */
export async function listRuns(
  db: Queryable,
  input: {
    accountId: string;
    limit: number;
    after?: RunCursor;
    provider?: string;
    status?: RunStatusFilter;
    /** The caller's allowlist (null: every tool). */
    allow: readonly string[] | null;
  },
): Promise<{ runs: RunHistoryRecord[]; next?: RunCursor }> {
  const rows = await db.query<RunRow>(
    `${RUN_SELECT} ${RUN_FROM}
     WHERE r.account_id = $1
       AND ($2::text IS NULL OR r.provider = $2)
       AND ($3::text IS NULL OR r.outcome = $3)
       AND ($4::boolean IS NULL OR COALESCE(r.upstream_status < $5::int, false) = $4)
       AND ($6::int8 IS NULL
            OR (r.created_at, r.id) < (timestamptz 'epoch' + $6::int8 * interval '1 microsecond', $7::text))
       AND ${visibleRuns("$9")}
     ORDER BY r.created_at DESC, r.id DESC
     LIMIT $8`,
    [
      input.accountId,
      input.provider ?? null,
      input.status?.outcome ?? null,
      input.status?.upstreamOk ?? null,
      UPSTREAM_ERROR_FROM,
      input.after?.createdMicros.toString() ?? null,
      input.after?.id ?? null,
      input.limit + 1,
      input.allow,
    ],
  );
  const runs = rows.slice(0, input.limit).map(toRecord);
  const last = runs.at(-1);
  return rows.length > input.limit && last
    ? { runs, next: { createdMicros: last.createdMicros, id: last.id } }
    : { runs };
}

/** One of the account's runs that `allow` lets its caller see, with its kept output (null when not kept), or undefined. */
export async function findRun(
  db: Queryable,
  accountId: string,
  runId: string,
  allow: readonly string[] | null,
): Promise<RunHistoryRecord | undefined> {
  const [row] = await db.query<RunRow>(
    `${RUN_SELECT}, r.output ${RUN_FROM} WHERE r.account_id = $1 AND r.id = $2 AND ${visibleRuns("$3")}`,
    [accountId, runId, allow],
  );
  return row ? toRecord(row) : undefined;
}

/** Runs of one tool, one key and one outcome in a period, and the money the ledger moved for them. */
export type UsageGroup = {
  provider: string;
  endpoint: string;
  method: string;
  keyId: string;
  keyPrefix: string;
  status: RunStatus;
  runs: number;
  /** What the account paid for them: their charges less their refunds. */
  costMicro: bigint;
};

/**
 * An account's runs that began in `[from, to)`, counted by tool, key and outcome (the caller sums
 * them as it needs), each group's cost being what the ledger's rows of those runs add up to.
 */
export async function usageGroups(
  db: Queryable,
  accountId: string,
  from: Date,
  to: Date,
  allow: readonly string[] | null,
): Promise<UsageGroup[]> {
  type Row = Omit<UsageGroup, "costMicro" | "status"> & {
    outcome: RunOutcome | "running";
    upstreamOk: boolean;
    costMicro: string;
  };
  const rows = await db.query<Row>(
    `WITH picked AS (
       SELECT r.id, r.provider, r.endpoint, r.method, r.key_id, r.outcome,
              COALESCE(r.upstream_status < $4::int, false) AS upstream_ok
       FROM gateway.runs r
       WHERE r.account_id = $1 AND r.created_at >= $2 AND r.created_at < $3 AND ${visibleRuns("$5")}
     ), money AS (
       SELECT l.run_id, sum(l.amount_micro) AS moved
       FROM gateway.ledger l JOIN picked ON picked.id = l.run_id
       GROUP BY l.run_id
     )
     SELECT p.provider, p.endpoint, p.method, p.key_id AS "keyId", k.prefix AS "keyPrefix", p.outcome,
            p.upstream_ok AS "upstreamOk", count(*)::int AS runs,
            (-COALESCE(sum(money.moved), 0))::text AS "costMicro"
     FROM picked p
     JOIN gateway.api_keys k ON k.id = p.key_id
     LEFT JOIN money ON money.run_id = p.id
     GROUP BY p.provider, p.endpoint, p.method, p.key_id, k.prefix, p.outcome, p.upstream_ok
     ORDER BY p.provider, p.endpoint, p.method, p.key_id`,
    [accountId, from, to, UPSTREAM_ERROR_FROM, allow],
  );
  return rows.map(({ outcome, upstreamOk, costMicro, ...row }) => ({
    ...row,
    status: statusOfOutcome(outcome, upstreamOk),
    costMicro: BigInt(costMicro),
  }));
}

/** One ledger row as the export shows it, with the run it charged or refunded and the payment of a credit. */
export type LedgerRecord = {
  id: bigint;
  kind: "credit" | "run" | "refund";
  amountMicro: bigint;
  balanceAfterMicro: bigint;
  createdAt: Date;
  note: string | null;
  run: {
    id: string;
    provider: string;
    endpoint: string;
    method: string;
    idempotencyKey: string | null;
    requestId: string | null;
    priceMicro: bigint;
  } | null;
  settlement: { protocol: string; reference: string | null; transactionHash: string | null } | null;
};

type LedgerRow = {
  id: string;
  kind: LedgerRecord["kind"];
  amountMicro: string;
  balanceAfterMicro: string;
  createdAt: Date;
  note: string | null;
  runId: string | null;
  provider: string | null;
  endpoint: string | null;
  method: string | null;
  idempotencyKey: string | null;
  requestId: string | null;
  priceMicro: string | null;
  protocol: string | null;
  reference: string | null;
  transactionHash: string | null;
};

/** The payment a credit was bought with (migration 007's columns). */
const SETTLEMENT_COLUMNS = `l.payment_protocol AS protocol, l.settlement_reference AS reference,
    l.transaction_hash AS "transactionHash"`;

const toLedgerRecord = (row: LedgerRow): LedgerRecord => ({
  id: BigInt(row.id),
  kind: row.kind,
  amountMicro: BigInt(row.amountMicro),
  balanceAfterMicro: BigInt(row.balanceAfterMicro),
  createdAt: row.createdAt,
  note: row.note,
  run:
    row.runId === null
      ? null
      : {
          id: row.runId,
          provider: row.provider ?? "",
          endpoint: row.endpoint ?? "",
          method: row.method ?? "",
          idempotencyKey: row.idempotencyKey,
          requestId: row.requestId,
          priceMicro: BigInt(row.priceMicro ?? "0"),
        },
  settlement:
    row.protocol === null
      ? null
      : { protocol: row.protocol, reference: row.reference, transactionHash: row.transactionHash },
});

/**
 * A page of an account's ledger, newest first (by the ledger's own order, its ids), after `after`:
 * its credits, and the rows of the runs `allow` lets its caller see.
 */
export async function listLedger(
  db: Queryable,
  input: { accountId: string; limit: number; after?: LedgerCursor; allow: readonly string[] | null },
): Promise<{ entries: LedgerRecord[]; next?: LedgerCursor }> {
  const rows = await db.query<LedgerRow>(
    `SELECT l.id::text AS id, l.kind, l.amount_micro::text AS "amountMicro",
            l.balance_after_micro::text AS "balanceAfterMicro", l.created_at AS "createdAt", l.note,
            r.id AS "runId", r.provider, r.endpoint, r.method, r.idempotency_key AS "idempotencyKey",
            r.request_id AS "requestId", r.cost_micro::text AS "priceMicro",
            ${SETTLEMENT_COLUMNS}
     FROM gateway.ledger l LEFT JOIN gateway.runs r ON r.id = l.run_id
     WHERE l.account_id = $1 AND ($2::int8 IS NULL OR l.id < $2::int8)
       AND (r.id IS NULL OR ${visibleRuns("$4")})
     ORDER BY l.id DESC
     LIMIT $3`,
    [input.accountId, input.after?.id.toString() ?? null, input.limit + 1, input.allow],
  );
  const entries = rows.slice(0, input.limit).map(toLedgerRecord);
  const last = entries.at(-1);
  return rows.length > input.limit && last ? { entries, next: { id: last.id } } : { entries };
}

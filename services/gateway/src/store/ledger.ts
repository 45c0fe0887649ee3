import type { Database, Queryable } from "@app/db";
import { noteBalanceChange } from "./balances.ts";

/** One ledger row, for `usage` and tests. */
export type LedgerEntry = {
  id: number;
  kind: "credit" | "run" | "refund";
  amountMicro: bigint;
  balanceAfterMicro: bigint;
  runId: string | null;
  note: string | null;
  createdAt: Date;
};

type LedgerRow = {
  id: number;
  kind: LedgerEntry["kind"];
  amount_micro: string;
  balance_after_micro: string;
  run_id: string | null;
  note: string | null;
  created_at: Date;
};

/** The settled payment a credit was bought with: its protocol, unique settlement reference and transaction. */
export type CreditSettlement = { protocol: "x402" | "mpp"; reference: string; transaction: string | null };

/**
 * Adds `amountMicro` (≥ 0) to an account and writes its ledger row (with the payment that bought
 * it, for a bought credit); the new balance, or undefined if no such account.
 */
export async function addToBalance(
  tx: Queryable,
  entry: {
    accountId: string;
    amountMicro: bigint;
    kind: "credit" | "refund";
    runId?: string;
    note?: string;
    settlement?: CreditSettlement;
  },
): Promise<bigint | undefined> {
  const [row] = await tx.query<{ balance_micro: string }>(
    `UPDATE gateway.accounts SET balance_micro = balance_micro + $2 WHERE id = $1
     RETURNING balance_micro::text AS balance_micro`,
    [entry.accountId, entry.amountMicro.toString()],
  );
  if (!row) return undefined;
  noteBalanceChange();
  await tx.query(
    `INSERT INTO gateway.ledger (account_id, kind, amount_micro, balance_after_micro, run_id, note,
       payment_protocol, settlement_reference, transaction_hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      entry.accountId,
      entry.kind,
      entry.amountMicro.toString(),
      row.balance_micro,
      entry.runId ?? null,
      entry.note ?? null,
      entry.settlement?.protocol ?? null,
      entry.settlement?.reference ?? null,
      entry.settlement?.transaction ?? null,
    ],
  );
  return BigInt(row.balance_micro);
}

/** Credits an account (operator top-up): one transaction, one ledger row. */
export function credit(
  db: Database,
  accountId: string,
  amountMicro: bigint,
  note?: string,
): Promise<bigint | undefined> {
  return db.transaction((tx) => addToBalance(tx, { accountId, amountMicro, kind: "credit", note }));
}

/** An account's ledger, newest first. */
export async function ledgerOf(db: Queryable, accountId: string, limit = 50): Promise<LedgerEntry[]> {
  const rows = await db.query<LedgerRow>(
    `SELECT id, kind, amount_micro::text AS amount_micro, balance_after_micro::text AS balance_after_micro,
            run_id, note, created_at
     FROM gateway.ledger WHERE account_id = $1 ORDER BY id DESC LIMIT $2`,
    [accountId, limit],
  );
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    amountMicro: BigInt(row.amount_micro),
    balanceAfterMicro: BigInt(row.balance_after_micro),
    runId: row.run_id,
    note: row.note,
    createdAt: row.created_at,
  }));
}

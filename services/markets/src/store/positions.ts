import type { Queryable } from "@app/db";
import type { Position } from "../domain/portfolio.ts";

export type StoredPosition = Position & { tokenId: string; conditionId: string; updatedAt: Date };

type PositionRow = {
  token_id: string;
  condition_id: string;
  shares_micro: string;
  cost_basis_micro: string;
  realised_pnl_micro: string;
  updated_at: Date;
};

const COLUMNS = `token_id, condition_id, shares_micro::text AS shares_micro,
  cost_basis_micro::text AS cost_basis_micro, realised_pnl_micro::text AS realised_pnl_micro, updated_at`;

function toPosition(row: PositionRow): StoredPosition {
  return {
    tokenId: row.token_id,
    conditionId: row.condition_id,
    sharesMicro: BigInt(row.shares_micro),
    costBasisMicro: BigInt(row.cost_basis_micro),
    realisedPnlMicro: BigInt(row.realised_pnl_micro),
    updatedAt: row.updated_at,
  };
}

/** An account's positions, most recently changed first. */
export async function listPositions(db: Queryable, accountId: string): Promise<StoredPosition[]> {
  const rows = await db.query<PositionRow>(
    `SELECT ${COLUMNS} FROM markets.positions WHERE account_id = $1 ORDER BY updated_at DESC, token_id`,
    [accountId],
  );
  return rows.map(toPosition);
}

/** One position, locked for the rest of the transaction. */
export async function lockPosition(
  tx: Queryable,
  accountId: string,
  tokenId: string,
): Promise<StoredPosition | undefined> {
  const [row] = await tx.query<PositionRow>(
    `SELECT ${COLUMNS} FROM markets.positions WHERE account_id = $1 AND token_id = $2 FOR UPDATE`,
    [accountId, tokenId],
  );
  return row ? toPosition(row) : undefined;
}

/** Writes a position's new state (inserting it on the account's first trade of the token). */
export async function savePosition(
  tx: Queryable,
  key: { accountId: string; tokenId: string; conditionId: string },
  position: Position,
): Promise<void> {
  await tx.query(
    `INSERT INTO markets.positions
       (account_id, token_id, condition_id, shares_micro, cost_basis_micro, realised_pnl_micro)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (account_id, token_id) DO UPDATE SET
       shares_micro = EXCLUDED.shares_micro, cost_basis_micro = EXCLUDED.cost_basis_micro,
       realised_pnl_micro = EXCLUDED.realised_pnl_micro, updated_at = now()`,
    [
      key.accountId,
      key.tokenId,
      key.conditionId,
      position.sharesMicro.toString(),
      position.costBasisMicro.toString(),
      position.realisedPnlMicro.toString(),
    ],
  );
}

import type { Database } from "@app/db";
import type { CatalogueMarket } from "../catalogue/types.ts";
import { applyResolution } from "../domain/portfolio.ts";
import { MarketsError } from "../errors.ts";
import { lockMarketBook, resolvedWinner } from "./market-state.ts";

export type Resolution = {
  conditionId: string;
  winnerIndex: 0 | 1;
  winningTokenId: string;
  payoutMicro: bigint;
  positionsSettled: number;
  resolvedAt: Date;
};

type HolderRow = {
  account_id: string;
  token_id: string;
  shares_micro: string;
  cost_basis_micro: string;
  realised_pnl_micro: string;
};

/**
 * Resolves a market: pays one USD per winning share into each holder's balance, closes every
 * position in the market, empties its book. One transaction under the market's lock (taken
 * before any account's, as orders do), so no order slips in between and a market resolves once.
 */
export async function resolveMarket(
  db: Database,
  market: CatalogueMarket,
  winnerIndex: 0 | 1,
): Promise<Resolution> {
  if (market.closed) throw alreadyResolved(market.conditionId);
  return db.transaction(async (tx) => {
    await lockMarketBook(tx, market);
    if ((await resolvedWinner(tx, market.conditionId)) !== undefined)
      throw alreadyResolved(market.conditionId);
    const holders = await tx.query<HolderRow>(
      `SELECT account_id, token_id, shares_micro::text AS shares_micro, cost_basis_micro::text AS cost_basis_micro,
              realised_pnl_micro::text AS realised_pnl_micro
       FROM markets.positions WHERE condition_id = $1 AND shares_micro > 0
       ORDER BY account_id, token_id FOR UPDATE`,
      [market.conditionId],
    );
    const winningTokenId = market.clobTokenIds[winnerIndex];
    let payoutMicro = 0n;
    for (const holder of holders) {
      const settled = applyResolution(
        {
          sharesMicro: BigInt(holder.shares_micro),
          costBasisMicro: BigInt(holder.cost_basis_micro),
          realisedPnlMicro: BigInt(holder.realised_pnl_micro),
        },
        holder.token_id === winningTokenId,
      );
      payoutMicro += settled.payoutMicro;
      await tx.query(
        `UPDATE markets.positions SET shares_micro = 0, cost_basis_micro = 0, realised_pnl_micro = $3, updated_at = now()
         WHERE account_id = $1 AND token_id = $2`,
        [holder.account_id, holder.token_id, settled.position.realisedPnlMicro.toString()],
      );
      if (settled.payoutMicro > 0n) {
        await tx.query("UPDATE markets.accounts SET balance_micro = balance_micro + $2 WHERE id = $1", [
          holder.account_id,
          settled.payoutMicro.toString(),
        ]);
      }
    }
    await tx.query(
      "UPDATE markets.books SET bids = '[]'::jsonb, asks = '[]'::jsonb, updated_at = now() WHERE condition_id = $1",
      [market.conditionId],
    );
    const [row] = await tx.query<{ resolved_at: Date }>(
      `INSERT INTO markets.resolutions (condition_id, winner_index, winning_token_id, payout_micro, positions_settled)
       VALUES ($1, $2, $3, $4, $5) RETURNING resolved_at`,
      [market.conditionId, winnerIndex, winningTokenId, payoutMicro.toString(), holders.length],
    );
    return {
      conditionId: market.conditionId,
      winnerIndex,
      winningTokenId,
      payoutMicro,
      positionsSettled: holders.length,
      resolvedAt: (row as { resolved_at: Date }).resolved_at,
    };
  });
}

function alreadyResolved(conditionId: string): MarketsError {
  return new MarketsError("MARKET_ALREADY_RESOLVED", "The market is already resolved.", { conditionId });
}

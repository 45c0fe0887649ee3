import { newId } from "@app/core";
import type { Database, Queryable } from "@app/db";
import type { TokenRef } from "../catalogue/catalogue.ts";
import { bookForOutcome, displayedMills, type Fill, type MarketOrder, walkBook } from "../domain/book.ts";
import { applyBuy, applySell, EMPTY_POSITION, type Position } from "../domain/portfolio.ts";
import { formatMicro } from "../domain/units.ts";
import { MarketsError } from "../errors.ts";
import { encodeLevels } from "./levels.ts";
import { decodeBook, lockMarketBook, resolvedWinner } from "./market-state.ts";
import { lockPosition, savePosition } from "./positions.ts";

/** A filled (or partly filled) market order, as recorded. */
export type ExecutedOrder = {
  id: string;
  accountId: string;
  token: TokenRef;
  order: MarketOrder;
  fills: Fill[];
  sharesMicro: bigint;
  notionalMicro: bigint;
  status: "filled" | "partially_filled";
  balanceMicro: bigint;
  position: Position;
  /** The traded outcome's displayed price before and after the order, in tenths of a cent. */
  priceBeforeMills: number;
  priceAfterMills: number;
  createdAt: Date;
};

async function lockBalance(tx: Queryable, accountId: string): Promise<bigint> {
  const [row] = await tx.query<{ balance_micro: string }>(
    "SELECT balance_micro::text AS balance_micro FROM markets.accounts WHERE id = $1 FOR UPDATE",
    [accountId],
  );
  if (!row) throw new MarketsError("UNAUTHORIZED", "The account does not exist.");
  return BigInt(row.balance_micro);
}

function checkCanAfford(order: MarketOrder, balanceMicro: bigint, costMicro?: bigint): void {
  const needed = costMicro ?? ("amountMicro" in order ? order.amountMicro : 0n);
  if (order.side === "buy" && needed > balanceMicro) {
    throw new MarketsError("INSUFFICIENT_FUNDS", "The order costs more than the account's balance.", {
      balance: formatMicro(balanceMicro),
      required: formatMicro(needed),
    });
  }
}

/**
 * Places paper market orders. One order is one transaction that locks, in this order, the
 * market's book row, the account row and the position row, so concurrent orders on one market
 * or one account run one after another and a balance can never be overspent.
 */
export class TradingStore {
  constructor(private readonly db: Database) {}

  async place(accountId: string, token: TokenRef, order: MarketOrder): Promise<ExecutedOrder> {
    const { market, outcomeIndex } = token;
    if (market.closed) throw closedError(market.conditionId);
    return this.db.transaction(async (tx) => {
      const bookRow = await lockMarketBook(tx, market);
      if ((await resolvedWinner(tx, market.conditionId)) !== undefined) throw closedError(market.conditionId);
      const balanceMicro = await lockBalance(tx, accountId);
      const held =
        (await lockPosition(tx, accountId, token.market.clobTokenIds[outcomeIndex])) ?? EMPTY_POSITION;
      if (order.side === "sell" && order.sharesMicro > held.sharesMicro) {
        throw new MarketsError(
          "INSUFFICIENT_SHARES",
          "The account holds fewer shares than the order sells.",
          {
            held: formatMicro(held.sharesMicro),
          },
        );
      }
      checkCanAfford(order, balanceMicro);
      const canonical = decodeBook(bookRow.bids, bookRow.asks);
      const tokenBook = bookForOutcome(canonical, outcomeIndex);
      const lastTrade = (cents: number | null) =>
        cents === null ? undefined : outcomeIndex === 0 ? cents : 100 - cents;
      const walk = walkBook(tokenBook, order);
      if (walk.sharesMicro === 0n) {
        throw new MarketsError(
          "NO_LIQUIDITY",
          "Nothing in the book fills this order (empty side, limit or amount too small).",
        );
      }
      checkCanAfford(order, balanceMicro, walk.notionalMicro);
      const newBalance =
        order.side === "buy" ? balanceMicro - walk.notionalMicro : balanceMicro + walk.notionalMicro;
      const position =
        order.side === "buy"
          ? applyBuy(held, walk.sharesMicro, walk.notionalMicro)
          : applySell(held, walk.sharesMicro, walk.notionalMicro);
      const lastFill = walk.fills.at(-1) as Fill;
      const after = bookForOutcome(walk.book, outcomeIndex);
      await tx.query(
        `UPDATE markets.books SET bids = $2::jsonb, asks = $3::jsonb, last_trade_cents = $4,
           traded_volume_micro = traded_volume_micro + $5, updated_at = now()
         WHERE condition_id = $1`,
        [
          market.conditionId,
          encodeLevels(after.bids),
          encodeLevels(after.asks),
          outcomeIndex === 0 ? lastFill.cents : 100 - lastFill.cents,
          walk.notionalMicro.toString(),
        ],
      );
      await tx.query("UPDATE markets.accounts SET balance_micro = $2 WHERE id = $1", [
        accountId,
        newBalance.toString(),
      ]);
      const tokenId = market.clobTokenIds[outcomeIndex];
      await savePosition(tx, { accountId, tokenId, conditionId: market.conditionId }, position);
      const id = newId("ord");
      const status = walk.complete ? "filled" : "partially_filled";
      const [row] = await tx.query<{ created_at: Date }>(
        `INSERT INTO markets.orders (id, account_id, token_id, condition_id, side, requested_amount_micro,
           requested_shares_micro, filled_shares_micro, notional_micro, fills, status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11) RETURNING created_at`,
        [
          id,
          accountId,
          tokenId,
          market.conditionId,
          order.side,
          "amountMicro" in order ? order.amountMicro.toString() : null,
          "sharesMicro" in order ? order.sharesMicro.toString() : null,
          walk.sharesMicro.toString(),
          walk.notionalMicro.toString(),
          JSON.stringify(
            walk.fills.map((fill) => ({ cents: fill.cents, shares: fill.sharesMicro.toString() })),
          ),
          status,
        ],
      );
      return {
        id,
        accountId,
        token,
        order,
        fills: walk.fills,
        sharesMicro: walk.sharesMicro,
        notionalMicro: walk.notionalMicro,
        status,
        balanceMicro: newBalance,
        position,
        priceBeforeMills: displayedMills(tokenBook, lastTrade(bookRow.last_trade_cents)),
        priceAfterMills: displayedMills(walk.book, lastFill.cents),
        createdAt: (row as { created_at: Date }).created_at,
      };
    });
  }
}

function closedError(conditionId: string): MarketsError {
  return new MarketsError("MARKET_CLOSED", "The market is closed: it no longer accepts orders.", {
    conditionId,
  });
}

import type { TokenRef } from "../catalogue/catalogue.ts";
import { bookForOutcome, type Level } from "../domain/book.ts";
import { type LiveMarket, lastTradeFor } from "../domain/live-market.ts";
import { formatCents, formatMicro } from "../domain/units.ts";

const levelView = (level: Level) => ({
  price: formatCents(level.cents),
  size: formatMicro(level.sharesMicro),
});

/** A token's order book in the CLOB `GET /book` shape: bids ascending, asks descending, strings. */
export function bookView(token: TokenRef, market: LiveMarket) {
  const book = bookForOutcome(market.book, token.outcomeIndex);
  const lastTrade = lastTradeFor(market, token.outcomeIndex);
  return {
    market: market.seed.conditionId,
    asset_id: market.seed.clobTokenIds[token.outcomeIndex],
    outcome: market.seed.outcomes[token.outcomeIndex],
    timestamp: String(Date.parse(market.updatedAt)),
    bids: book.bids.map(levelView),
    asks: book.asks.map(levelView),
    min_order_size: String(market.seed.orderMinSize),
    tick_size: "0.01",
    neg_risk: market.seed.negRisk,
    last_trade_price: lastTrade === undefined ? null : formatCents(lastTrade),
    closed: market.winnerIndex !== null,
  };
}

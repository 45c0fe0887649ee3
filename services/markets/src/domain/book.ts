import { LOT_MICRO_SHARES, notionalMicro } from "./units.ts";

/** One price level: a price on the tick grid and the shares resting there. */
export type Level = { cents: number; sharesMicro: bigint };

/**
 * An order book as the CLOB returns it: bids ascending and asks descending, so the best
 * price of each side is its last entry.
 */
export type Book = { bids: Level[]; asks: Level[] };

/**
 * A binary market has one book. The second outcome's book is its mirror: a bid for "Yes" at
 * p is an ask for "No" at 1 − p (the CLOB matches complementary tokens the same way), so both
 * outcomes' prices always sum to one.
 */
export function mirrorBook(book: Book): Book {
  const flip = (level: Level): Level => ({ cents: 100 - level.cents, sharesMicro: level.sharesMicro });
  // Flipping prices reverses the order, so ascending Yes bids become descending No asks as they are.
  return { bids: book.asks.map(flip), asks: book.bids.map(flip) };
}

/** The book of outcome `index` (0 or 1) of a market whose canonical book is that of outcome 0. */
export function bookForOutcome(canonical: Book, index: number): Book {
  return index === 0 ? canonical : mirrorBook(canonical);
}

/** One fill of a market order against one level. */
export type Fill = { cents: number; sharesMicro: bigint; costMicro: bigint };

/** What a market order asks for: spend up to a USD amount, buy a number of shares, or sell shares. */
export type MarketOrder =
  | { side: "buy"; amountMicro: bigint; limitCents?: number }
  | { side: "buy" | "sell"; sharesMicro: bigint; limitCents?: number };

/** The outcome of walking the book: fills best price first, totals, and the book left behind. */
export type Walk = {
  fills: Fill[];
  sharesMicro: bigint;
  /** What the buyer pays or the seller receives. */
  notionalMicro: bigint;
  /** False when the side ran out or the limit price stopped the order before it was satisfied. */
  complete: boolean;
  book: Book;
};

function levelsTaken(order: MarketOrder, book: Book): Level[] {
  return order.side === "buy" ? book.asks : book.bids;
}

function beyondLimit(order: MarketOrder, cents: number): boolean {
  if (order.limitCents === undefined) return false;
  return order.side === "buy" ? cents > order.limitCents : cents < order.limitCents;
}

/** How many micro-shares the order still wants at a level, in whole lots. */
function wantedAt(order: MarketOrder, level: Level, spentMicro: bigint, filledMicro: bigint): bigint {
  if ("amountMicro" in order) {
    const lotCost = notionalMicro(LOT_MICRO_SHARES, level.cents);
    const lots = (order.amountMicro - spentMicro) / lotCost;
    return lots * LOT_MICRO_SHARES;
  }
  return order.sharesMicro - filledMicro;
}

/**
 * Walks a market order through the side of `book` it takes (asks for a buy, lowest first;
 * bids for a sell, highest first), filling whole lots until the order is satisfied, the side
 * is empty or the next level is beyond the limit price. Fill-and-kill: what cannot fill is
 * left unfilled. Pure: returns the book as it stands after the fills.
 */
export function walkBook(book: Book, order: MarketOrder): Walk {
  const side = levelsTaken(order, book).map((level) => ({ ...level }));
  const fills: Fill[] = [];
  let sharesMicro = 0n;
  let notional = 0n;
  let complete = false;
  while (side.length > 0) {
    const best = side[side.length - 1] as Level;
    if (beyondLimit(order, best.cents)) break;
    const wanted = wantedAt(order, best, notional, sharesMicro);
    if (wanted <= 0n) {
      complete = true;
      break;
    }
    const taken = wanted < best.sharesMicro ? wanted : best.sharesMicro;
    const cost = notionalMicro(taken, best.cents);
    fills.push({ cents: best.cents, sharesMicro: taken, costMicro: cost });
    sharesMicro += taken;
    notional += cost;
    best.sharesMicro -= taken;
    if (best.sharesMicro > 0n) {
      complete = true;
      break;
    }
    side.pop();
  }
  if (!complete && "sharesMicro" in order && sharesMicro === order.sharesMicro) complete = true;
  const after = order.side === "buy" ? { bids: book.bids, asks: side } : { bids: side, asks: book.asks };
  return { fills, sharesMicro, notionalMicro: notional, complete, book: after };
}

/** Best bid and ask in cents, when the sides are not empty. */
export function bestPrices(book: Book): { bid?: number; ask?: number } {
  return { bid: book.bids.at(-1)?.cents, ask: book.asks.at(-1)?.cents };
}

/** Above this spread (in cents) the displayed price is the last trade, not the midpoint. */
export const MAX_MIDPOINT_SPREAD_CENTS = 10;

/**
 * The price the site displays, in tenths of a cent (a midpoint may fall between ticks): the
 * bid–ask midpoint, or the last trade when the spread is wider than 0.10 or a side is empty.
 */
export function displayedMills(book: Book, lastTradeCents: number | undefined): number {
  const { bid, ask } = bestPrices(book);
  if (bid !== undefined && ask !== undefined && ask - bid <= MAX_MIDPOINT_SPREAD_CENTS) {
    return (bid + ask) * 5;
  }
  if (lastTradeCents !== undefined) return lastTradeCents * 10;
  if (bid !== undefined && ask !== undefined) return (bid + ask) * 5;
  return (bid ?? ask ?? 50) * 10;
}

/** The resting value of a book (price × size over both sides), the market's liquidity. */
export function bookLiquidityMicro(book: Book): bigint {
  let total = 0n;
  for (const level of book.bids) total += notionalMicro(level.sharesMicro, level.cents);
  for (const level of book.asks) total += notionalMicro(level.sharesMicro, level.cents);
  return total;
}

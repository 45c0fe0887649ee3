import type { CatalogueMarket } from "../catalogue/types.ts";
import { type Book, bookForOutcome, displayedMills } from "./book.ts";

/** A market as it stands now: its seed, plus what trading and resolution changed. */
export type LiveMarket = {
  seed: CatalogueMarket;
  /** The book of outcome 0 (empty once resolved). */
  book: Book;
  lastTradeCents: number | null;
  volumeMicro: bigint;
  winnerIndex: 0 | 1 | null;
  updatedAt: string;
};

/** What the database holds about a market that has traded or been resolved. */
export type MarketChanges = {
  book?: { book: Book; lastTradeCents: number | null; tradedVolumeMicro: bigint; updatedAt: string };
  resolution?: { winnerIndex: 0 | 1; resolvedAt: string };
};

/** Combines a seeded market with its changes. */
export function liveMarket(seed: CatalogueMarket, changes: MarketChanges = {}): LiveMarket {
  const winnerIndex = seed.winnerIndex ?? changes.resolution?.winnerIndex ?? null;
  const traded = changes.book;
  const times = [seed.createdAt, traded?.updatedAt, changes.resolution?.resolvedAt].filter(
    (time): time is string => time !== undefined,
  );
  return {
    seed,
    book: winnerIndex !== null ? { bids: [], asks: [] } : (traded?.book ?? seed.book),
    lastTradeCents: traded?.lastTradeCents ?? seed.lastTradeCents,
    volumeMicro: seed.volumeMicro + (traded?.tradedVolumeMicro ?? 0n),
    winnerIndex,
    updatedAt: times.sort().at(-1) as string,
  };
}

/** The last trade as seen from outcome `index` (outcome 1 trades at one minus outcome 0's price). */
export function lastTradeFor(market: LiveMarket, index: number): number | undefined {
  if (market.lastTradeCents === null) return undefined;
  return index === 0 ? market.lastTradeCents : 100 - market.lastTradeCents;
}

/** The displayed price of outcome `index` in tenths of a cent: 1000/0 once resolved. */
export function outcomeMills(market: LiveMarket, index: number): number {
  if (market.winnerIndex !== null) return market.winnerIndex === index ? 1000 : 0;
  return displayedMills(bookForOutcome(market.book, index), lastTradeFor(market, index));
}

import type { Book } from "../domain/book.ts";

/** A market of the seeded catalogue: fixed facts plus the book it opens with. */
export type CatalogueMarket = {
  id: string;
  eventId: string;
  question: string;
  slug: string;
  conditionId: string;
  questionID: string;
  description: string;
  /** Two outcomes, as on Polymarket ("Yes"/"No", or e.g. two team names). */
  outcomes: [string, string];
  clobTokenIds: [string, string];
  groupItemTitle: string | null;
  startDate: string;
  endDate: string;
  createdAt: string;
  closedTime: string | null;
  closed: boolean;
  /** For a market the seed already resolved: the index of the winning outcome. */
  winnerIndex: 0 | 1 | null;
  negRisk: boolean;
  volumeMicro: bigint;
  volume24hrMicro: bigint;
  openInterestMicro: bigint;
  /** The book of outcome 0; outcome 1's book is its mirror. Empty for closed markets. */
  book: Book;
  lastTradeCents: number | null;
  orderMinSize: number;
};

export type CatalogueEvent = {
  id: string;
  ticker: string;
  slug: string;
  title: string;
  description: string;
  resolutionSource: string;
  category: string;
  tags: string[];
  startDate: string;
  creationDate: string;
  endDate: string;
  closed: boolean;
  featured: boolean;
  negRisk: boolean;
  negRiskMarketID: string | null;
  commentCount: number;
  markets: CatalogueMarket[];
};

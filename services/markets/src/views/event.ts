import type { CatalogueEvent } from "../catalogue/types.ts";
import { bestPrices, bookLiquidityMicro } from "../domain/book.ts";
import { type LiveMarket, outcomeMills } from "../domain/live-market.ts";
import { formatMicro, formatMills } from "../domain/units.ts";

/** Micro units as a JSON number (Gamma reports event volume and liquidity as numbers). */
const asNumber = (micro: bigint): number => Number(formatMicro(micro));
const centsNumber = (cents: number | undefined): number | null => (cents === undefined ? null : cents / 100);

/** One outcome of a market, parsed: its name, price, implied probability and token. */
export type OutcomeView = {
  name: string;
  price: string;
  probability: number;
  tokenId: string;
  winner: boolean | null;
};

function outcomeViews(market: LiveMarket): OutcomeView[] {
  return market.seed.outcomes.map((name, index) => {
    const price = formatMills(outcomeMills(market, index));
    return {
      name,
      price,
      probability: Number(price),
      tokenId: market.seed.clobTokenIds[index] as string,
      winner: market.winnerIndex === null ? null : market.winnerIndex === index,
    };
  });
}

/**
 * A market in the Gamma shape: `outcomes`, `outcomePrices` and `clobTokenIds` are JSON-encoded
 * strings and `volume`/`liquidity` strings, as Gamma has them; `parsedOutcomes` adds the same
 * facts parsed, with each outcome's implied probability.
 */
export function marketView(market: LiveMarket) {
  const { seed } = market;
  const outcomes = outcomeViews(market);
  const { bid, ask } = bestPrices(market.book);
  const liquidityMicro = bookLiquidityMicro(market.book);
  const closed = market.winnerIndex !== null;
  return {
    id: seed.id,
    question: seed.question,
    conditionId: seed.conditionId,
    slug: seed.slug,
    questionID: seed.questionID,
    description: seed.description,
    resolutionSource: "",
    groupItemTitle: seed.groupItemTitle,
    startDate: seed.startDate,
    endDate: seed.endDate,
    endDateIso: seed.endDate.slice(0, 10),
    createdAt: seed.createdAt,
    updatedAt: market.updatedAt,
    closedTime: seed.closedTime,
    outcomes: JSON.stringify(seed.outcomes),
    outcomePrices: JSON.stringify(outcomes.map((outcome) => outcome.price)),
    clobTokenIds: JSON.stringify(seed.clobTokenIds),
    volume: formatMicro(market.volumeMicro),
    volumeNum: asNumber(market.volumeMicro),
    volume24hr: asNumber(seed.volume24hrMicro),
    volumeClob: asNumber(market.volumeMicro),
    liquidity: formatMicro(liquidityMicro),
    liquidityNum: asNumber(liquidityMicro),
    liquidityClob: asNumber(liquidityMicro),
    openInterest: asNumber(closed ? 0n : seed.openInterestMicro),
    bestBid: centsNumber(bid),
    bestAsk: centsNumber(ask),
    spread: bid !== undefined && ask !== undefined ? (ask - bid) / 100 : null,
    lastTradePrice: centsNumber(market.lastTradeCents ?? undefined),
    active: true,
    closed,
    archived: false,
    acceptingOrders: !closed,
    enableOrderBook: true,
    orderPriceMinTickSize: 0.01,
    orderMinSize: seed.orderMinSize,
    negRisk: seed.negRisk,
    umaResolutionStatus: closed ? "resolved" : null,
    parsedOutcomes: outcomes,
  };
}

export type MarketView = ReturnType<typeof marketView>;

/** An event in the Gamma shape with every market; money totals are numbers, as Gamma has them. */
export function eventView(event: CatalogueEvent, live: ReadonlyMap<string, LiveMarket>) {
  const markets = event.markets.map((market) => live.get(market.conditionId) as LiveMarket);
  const views = markets.map(marketView);
  const sum = (pick: (market: LiveMarket) => bigint) =>
    markets.reduce((total, market) => total + pick(market), 0n);
  const liquidityMicro = sum((market) => bookLiquidityMicro(market.book));
  const closed = markets.every((market) => market.winnerIndex !== null);
  return {
    id: event.id,
    ticker: event.ticker,
    slug: event.slug,
    title: event.title,
    description: event.description,
    resolutionSource: event.resolutionSource,
    category: event.category,
    startDate: event.startDate,
    creationDate: event.creationDate,
    endDate: event.endDate,
    createdAt: event.creationDate,
    updatedAt:
      markets
        .map((market) => market.updatedAt)
        .sort()
        .at(-1) ?? event.creationDate,
    active: true,
    closed,
    archived: false,
    new: false,
    featured: event.featured,
    restricted: false,
    volume: asNumber(sum((market) => market.volumeMicro)),
    volume24hr: asNumber(sum((market) => market.seed.volume24hrMicro)),
    liquidity: asNumber(liquidityMicro),
    liquidityClob: asNumber(liquidityMicro),
    openInterest: asNumber(
      sum((market) => (market.winnerIndex === null ? market.seed.openInterestMicro : 0n)),
    ),
    negRisk: event.negRisk,
    enableNegRisk: event.negRisk,
    negRiskMarketID: event.negRiskMarketID,
    enableOrderBook: true,
    commentCount: event.commentCount,
    tags: event.tags.map((label) => ({ label, slug: label.toLowerCase().replace(/[^a-z0-9]+/g, "-") })),
    markets: views,
  };
}

import type { Book, Level } from "../domain/book.ts";
import { LOT_MICRO_SHARES, MICRO } from "../domain/units.ts";
import { hashHex, Prng, slugify, tokenIdFor } from "./prng.ts";
import {
  BINARY_THEMES,
  type BinaryTheme,
  CANDIDATE_THEMES,
  type CandidateTheme,
  MATCH_THEMES,
  type MatchTheme,
  THRESHOLD_THEMES,
  type ThresholdTheme,
} from "./themes.ts";
import type { CatalogueEvent, CatalogueMarket } from "./types.ts";

/** The seed of the generator: change it and every price, size and id changes. */
export const CATALOGUE_SEED = 0x5eed2026;
/** The catalogue describes the world as of this instant (creation dates lie before it). */
export const CATALOGUE_AS_OF = "2026-11-20T00:00:00.000Z";

const DAY_MS = 86_400_000;

type Counters = { eventId: number; marketId: number };

type MarketSpec = {
  question: string;
  slug: string;
  outcomes: [string, string];
  groupItemTitle: string | null;
  /** Price of outcome 0 in cents (1..99). */
  midCents: number;
  winnerIndex: 0 | 1 | null;
  description: string;
};

type EventSpec = {
  title: string;
  category: string;
  tags: string[];
  endDate: string;
  negRisk: boolean;
  description: string;
  markets: MarketSpec[];
};

function isoDaysBefore(iso: string, days: number): string {
  return new Date(Date.parse(iso) - days * DAY_MS).toISOString();
}

function levelSize(prng: Prng, depth: number): bigint {
  const shares = prng.int(20, 1500) * (1 + depth);
  return BigInt(shares) * 100n * LOT_MICRO_SHARES;
}

/** A book around `midCents`: a tight spread mostly, a wide one now and then; up to 10 levels a side. */
export function makeBook(prng: Prng, midCents: number): Book {
  const spread = prng.chance(0.08) ? prng.int(12, 20) : prng.int(1, 3);
  const bestBid = Math.max(0, midCents - Math.floor(spread / 2));
  const bestAsk = Math.min(100, bestBid + spread);
  const bids: Level[] = [];
  for (let cents = Math.max(1, bestBid - 9); cents <= bestBid; cents++) {
    if (cents === bestBid || prng.chance(0.75)) {
      bids.push({ cents, sharesMicro: levelSize(prng, bestBid - cents) });
    }
  }
  const asks: Level[] = [];
  for (let cents = Math.min(99, bestAsk + 9); cents >= bestAsk; cents--) {
    if (cents === bestAsk || prng.chance(0.75)) {
      asks.push({ cents, sharesMicro: levelSize(prng, cents - bestAsk) });
    }
  }
  return { bids, asks };
}

function usdMicro(prng: Prng, minExponent: number, maxExponent: number): bigint {
  const cents = Math.round(10 ** (minExponent + (maxExponent - minExponent) * prng.next()) * 100);
  return BigInt(cents) * (MICRO / 100n);
}

function buildMarket(
  prng: Prng,
  counters: Counters,
  event: CatalogueEvent,
  spec: MarketSpec,
): CatalogueMarket {
  counters.marketId += prng.int(1, 37);
  const closed = spec.winnerIndex !== null;
  const conditionId = `0x${hashHex(`condition:${spec.slug}`)}`;
  const volumeMicro = usdMicro(prng, 3.5, 7.2);
  const startDate = isoDaysBefore(event.startDate, -prng.int(0, 3));
  return {
    id: String(counters.marketId),
    eventId: event.id,
    question: spec.question,
    slug: spec.slug,
    conditionId,
    questionID: `0x${hashHex(`question:${spec.slug}`)}`,
    description: spec.description,
    outcomes: spec.outcomes,
    clobTokenIds: [tokenIdFor(`token:${conditionId}:0`), tokenIdFor(`token:${conditionId}:1`)],
    groupItemTitle: spec.groupItemTitle,
    startDate,
    endDate: event.endDate,
    createdAt: startDate,
    closedTime: closed
      ? new Date(Date.parse(event.endDate) + prng.int(1, 48) * 3_600_000).toISOString()
      : null,
    closed,
    winnerIndex: spec.winnerIndex,
    negRisk: event.negRisk,
    volumeMicro,
    volume24hrMicro: closed ? 0n : (volumeMicro * BigInt(prng.int(0, 60))) / 1000n,
    openInterestMicro: closed ? 0n : (volumeMicro * BigInt(prng.int(50, 300))) / 1000n,
    book: closed ? { bids: [], asks: [] } : makeBook(prng, spec.midCents),
    lastTradeCents: closed ? null : spec.midCents,
    orderMinSize: 5,
  };
}

function buildEvent(prng: Prng, counters: Counters, spec: EventSpec): CatalogueEvent {
  counters.eventId += prng.int(1, 41);
  const slug = slugify(spec.title);
  const closed = spec.markets.every((market) => market.winnerIndex !== null);
  const created = closed
    ? isoDaysBefore(spec.endDate, prng.int(30, 200))
    : isoDaysBefore(CATALOGUE_AS_OF, prng.int(5, 300));
  const event: CatalogueEvent = {
    id: String(counters.eventId),
    ticker: slug,
    slug,
    title: spec.title,
    description: spec.description,
    resolutionSource: "",
    category: spec.category,
    tags: spec.tags,
    startDate: created,
    creationDate: created,
    endDate: spec.endDate,
    closed,
    featured: prng.chance(0.15),
    negRisk: spec.negRisk,
    negRiskMarketID: spec.negRisk ? `0x${hashHex(`neg-risk:${slug}`)}` : null,
    commentCount: prng.int(0, 4000),
    markets: [],
  };
  event.markets = spec.markets.map((market) => buildMarket(prng, counters, event, market));
  return event;
}

const resolutionText = (subject: string) =>
  `This market will resolve to "Yes" if ${subject}. Otherwise, it will resolve to "No". ` +
  "The resolution source is the official announcement; this is a paper-trading fixture.";

/** Skewed weights that sum to one, so a few candidates lead and most trail. */
function candidatePrices(prng: Prng, count: number): number[] {
  const weights = Array.from({ length: count }, () => prng.next() ** 3 + 0.004);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return weights.map((weight) => Math.min(99, Math.max(1, Math.round((weight / total) * 100))));
}

function candidateEvent(prng: Prng, theme: CandidateTheme): EventSpec {
  const prices = candidatePrices(prng, theme.candidates.length);
  const eventSlug = slugify(theme.title);
  return {
    title: theme.title,
    category: theme.category,
    tags: theme.tags,
    endDate: theme.endDate,
    negRisk: true,
    description: `Mutually exclusive outcomes: exactly one of these markets resolves "Yes". ${theme.title}`,
    markets: theme.candidates.map((candidate, index) => {
      const eliminated = theme.eliminated?.includes(candidate) ?? false;
      const winnerIndex = theme.winner ? (theme.winner === candidate ? 0 : 1) : eliminated ? 1 : null;
      return {
        question: theme.question(candidate),
        slug: `${slugify(candidate)}-${eventSlug}`,
        outcomes: ["Yes", "No"],
        groupItemTitle: candidate,
        midCents: prices[index] as number,
        winnerIndex,
        description: resolutionText(theme.question(candidate).replace(/^Will (.*)\?$/, "$1")),
      };
    }),
  };
}

function thresholdEvent(prng: Prng, theme: ThresholdTheme): EventSpec {
  let price = prng.int(85, 97);
  return {
    title: theme.title,
    category: theme.category,
    tags: theme.tags,
    endDate: theme.endDate,
    negRisk: false,
    description: `One market per threshold; each resolves on its own. ${theme.title}`,
    markets: theme.thresholds.map((threshold) => {
      const midCents = price;
      price = Math.max(1, price - prng.int(4, 18));
      return {
        question: theme.question(threshold),
        slug: slugify(theme.question(threshold)),
        outcomes: ["Yes", "No"],
        groupItemTitle: threshold,
        midCents,
        winnerIndex: null,
        description: resolutionText(theme.question(threshold).replace(/^Will (.*)\?$/, "$1")),
      };
    }),
  };
}

function binaryEvent(prng: Prng, theme: BinaryTheme): EventSpec {
  const slug = slugify(theme.title);
  return {
    title: theme.title,
    category: theme.category,
    tags: theme.tags,
    endDate: theme.endDate,
    negRisk: false,
    description: resolutionText(theme.title.replace(/^Will (.*)\?$/, "$1").replace(/\?$/, "")),
    markets: [
      {
        question: theme.title,
        // A single-market event's market shares its slug, as on the site.
        slug,
        outcomes: ["Yes", "No"],
        groupItemTitle: null,
        midCents: prng.int(3, 97),
        winnerIndex: theme.resolved ? (theme.resolved === "Yes" ? 0 : 1) : null,
        description: resolutionText(theme.title),
      },
    ],
  };
}

function matchEvent(prng: Prng, theme: MatchTheme): EventSpec {
  const title = `${theme.away} vs. ${theme.home}`;
  const slug = `${slugify(theme.league)}-${slugify(theme.away)}-${slugify(theme.home)}-${theme.date.slice(0, 10)}`;
  const played = theme.winner !== undefined;
  const pick = (): 0 | 1 => (prng.chance(0.5) ? 0 : 1);
  const homeCents = prng.int(30, 72);
  return {
    title,
    category: "Sports",
    tags: ["Sports", theme.league],
    endDate: theme.date,
    negRisk: false,
    description: `${theme.league}: ${title}, scheduled for ${theme.date}.`,
    markets: [
      {
        question: title,
        slug,
        outcomes: [theme.home, theme.away],
        groupItemTitle: "Moneyline",
        midCents: homeCents,
        winnerIndex: played ? (theme.winner === "home" ? 0 : 1) : null,
        description: `Resolves to the team that wins ${title}.`,
      },
      {
        question: `Spread: ${theme.home} (-${theme.spread})`,
        slug: `${slug}-spread-home-${String(theme.spread).replace(".", "pt")}`,
        outcomes: [theme.home, theme.away],
        groupItemTitle: `Spread -${theme.spread}`,
        midCents: prng.int(42, 58),
        winnerIndex: played ? pick() : null,
        description: `Resolves to ${theme.home} if they win by more than ${theme.spread}, else ${theme.away}.`,
      },
      {
        question: `${title}: O/U ${theme.total}`,
        slug: `${slug}-total-${String(theme.total).replace(".", "pt")}`,
        outcomes: ["Over", "Under"],
        groupItemTitle: `O/U ${theme.total}`,
        midCents: prng.int(40, 60),
        winnerIndex: played ? pick() : null,
        description: `Resolves "Over" if the combined score exceeds ${theme.total}, else "Under".`,
      },
    ],
  };
}

/**
 * Generates the whole catalogue from {@link CATALOGUE_SEED}: the same events, markets, ids,
 * condition ids, token ids and books on every start and every machine. No network, no clock.
 */
export function generateCatalogue(): CatalogueEvent[] {
  const prng = new Prng(CATALOGUE_SEED);
  const counters: Counters = { eventId: 16_000, marketId: 540_000 };
  const specs: EventSpec[] = [
    ...CANDIDATE_THEMES.map((theme) => candidateEvent(prng, theme)),
    ...THRESHOLD_THEMES.map((theme) => thresholdEvent(prng, theme)),
    ...BINARY_THEMES.map((theme) => binaryEvent(prng, theme)),
    ...MATCH_THEMES.map((theme) => matchEvent(prng, theme)),
  ];
  return specs.map((spec) => buildEvent(prng, counters, spec));
}

import { z } from "@app/core";

const nullableNumber = z.number().nullable();

export const OutcomeSchema = z
  .object({
    name: z.string().openapi({ example: "Yes" }),
    price: z.string().openapi({
      example: "0.375",
      description: "Displayed price: midpoint, or last trade when the spread is over 0.10",
    }),
    probability: z
      .number()
      .openapi({ example: 0.375, description: "Implied probability (the price as a number)" }),
    tokenId: z.string().openapi({ description: "CLOB token id, 77 decimal digits" }),
    winner: z.boolean().nullable().openapi({ description: "Once resolved: whether this outcome won" }),
  })
  .openapi("Outcome");

export const MarketSchema = z
  .object({
    id: z.string(),
    question: z.string(),
    conditionId: z.string().openapi({ example: `0x${"ab".repeat(32)}` }),
    slug: z.string(),
    questionID: z.string(),
    description: z.string(),
    resolutionSource: z.string(),
    groupItemTitle: z.string().nullable(),
    startDate: z.string(),
    endDate: z.string(),
    endDateIso: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    closedTime: z.string().nullable(),
    outcomes: z.string().openapi({ example: '["Yes","No"]', description: "JSON-encoded array, as in Gamma" }),
    outcomePrices: z.string().openapi({ example: '["0.375","0.625"]', description: "JSON-encoded array" }),
    clobTokenIds: z.string().openapi({ description: "JSON-encoded array of token ids" }),
    volume: z.string().openapi({ description: "USD, a decimal string (Gamma's market volume is a string)" }),
    volumeNum: z.number(),
    volume24hr: z.number(),
    volumeClob: z.number(),
    liquidity: z.string(),
    liquidityNum: z.number(),
    liquidityClob: z.number(),
    openInterest: z.number(),
    bestBid: nullableNumber,
    bestAsk: nullableNumber,
    spread: nullableNumber,
    lastTradePrice: nullableNumber,
    active: z.boolean(),
    closed: z.boolean(),
    archived: z.boolean(),
    acceptingOrders: z.boolean(),
    enableOrderBook: z.boolean(),
    orderPriceMinTickSize: z.number(),
    orderMinSize: z.number(),
    negRisk: z.boolean(),
    umaResolutionStatus: z.string().nullable(),
    parsedOutcomes: z.array(OutcomeSchema),
  })
  .openapi("Market");

export const EventSchema = z
  .object({
    id: z.string(),
    ticker: z.string(),
    slug: z.string(),
    title: z.string(),
    description: z.string(),
    resolutionSource: z.string(),
    category: z.string(),
    startDate: z.string(),
    creationDate: z.string(),
    endDate: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    active: z.boolean(),
    closed: z.boolean(),
    archived: z.boolean(),
    new: z.boolean(),
    featured: z.boolean(),
    restricted: z.boolean(),
    volume: z.number().openapi({ description: "USD (Gamma's event volume is a number)" }),
    volume24hr: z.number(),
    liquidity: z.number(),
    liquidityClob: z.number(),
    openInterest: z.number(),
    negRisk: z.boolean(),
    enableNegRisk: z.boolean(),
    negRiskMarketID: z.string().nullable(),
    enableOrderBook: z.boolean(),
    commentCount: z.number(),
    tags: z.array(z.object({ label: z.string(), slug: z.string() })),
    markets: z.array(MarketSchema),
  })
  .openapi("Event");

const LevelSchema = z.object({ price: z.string(), size: z.string() });

export const BookSchema = z
  .object({
    market: z.string(),
    asset_id: z.string(),
    outcome: z.string(),
    timestamp: z.string(),
    bids: z.array(LevelSchema).openapi({ description: "Ascending: the best bid is last" }),
    asks: z.array(LevelSchema).openapi({ description: "Descending: the best ask is last" }),
    min_order_size: z.string(),
    tick_size: z.string(),
    neg_risk: z.boolean(),
    last_trade_price: z.string().nullable(),
    closed: z.boolean(),
  })
  .openapi("OrderBook");

export const PositionSchema = z
  .object({
    tokenId: z.string(),
    conditionId: z.string(),
    eventSlug: z.string(),
    question: z.string(),
    outcome: z.string(),
    shares: z.string(),
    averagePrice: z.string().nullable(),
    costBasis: z.string(),
    currentPrice: z.string(),
    marketValue: z.string(),
    unrealisedPnl: z.string(),
    realisedPnl: z.string(),
    status: z.enum(["open", "closed", "resolved"]),
  })
  .openapi("Position");

export const AccountSchema = z
  .object({ id: z.string(), label: z.string().nullable(), balance: z.string(), createdAt: z.string() })
  .openapi("PaperAccount");

/** A USD amount or share count: a decimal string (a JSON number is read as the decimal it prints as). */
export const decimalInput = (example: string) =>
  z
    .union([z.string(), z.number()])
    .transform((value) => String(value))
    .pipe(z.string().regex(/^\d{1,9}(\.\d{1,6})?$/, "must be a positive decimal with at most 6 decimals"))
    .openapi({ type: "string", example });

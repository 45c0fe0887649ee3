import { describe, expect, it } from "vitest";
import { Catalogue } from "../../src/catalogue/catalogue.ts";
import { generateCatalogue } from "../../src/catalogue/generate.ts";

const events = generateCatalogue();
const markets = events.flatMap((event) => event.markets);

describe("the seeded catalogue", () => {
  it("is the same on every generation", () => {
    expect(generateCatalogue()).toEqual(events);
  });

  it("holds dozens of events and hundreds of markets", () => {
    expect(events.length).toBeGreaterThanOrEqual(40);
    expect(markets.length).toBeGreaterThanOrEqual(200);
    // Building the indexes also proves every id, slug, condition id and token id is unique.
    expect(new Catalogue(events).marketCount).toBe(markets.length);
  });

  it("shapes ids like Polymarket's", () => {
    for (const market of markets) {
      expect(market.conditionId).toMatch(/^0x[0-9a-f]{64}$/);
      expect(market.id).toMatch(/^\d+$/);
      for (const tokenId of market.clobTokenIds) expect(tokenId).toMatch(/^[1-9]\d{76}$/);
    }
    for (const event of events) expect(event.id).toMatch(/^\d+$/);
  });

  it("has neg-risk events with a groupItemTitle per candidate", () => {
    const negRisk = events.filter((event) => event.negRisk);
    expect(negRisk.length).toBeGreaterThanOrEqual(5);
    for (const event of negRisk) {
      expect(event.markets.length).toBeGreaterThan(2);
      for (const market of event.markets) expect(market.groupItemTitle).toBeTruthy();
    }
  });

  it("has markets whose outcomes are not Yes and No", () => {
    const named = markets.filter((market) => market.outcomes[0] !== "Yes");
    expect(named.length).toBeGreaterThan(5);
    expect(named.some((market) => market.outcomes.includes("Over"))).toBe(true);
  });

  it("has closed, resolved markets and events with empty books", () => {
    const closed = markets.filter((market) => market.closed);
    expect(closed.length).toBeGreaterThan(10);
    expect(events.some((event) => event.closed)).toBe(true);
    for (const market of closed) {
      expect(market.winnerIndex === 0 || market.winnerIndex === 1).toBe(true);
      expect(market.book).toEqual({ bids: [], asks: [] });
    }
  });

  it("keeps open books ordered, on the tick grid, in whole lots and uncrossed", () => {
    for (const market of markets.filter((candidate) => !candidate.closed)) {
      const { bids, asks } = market.book;
      const bidPrices = bids.map((level) => level.cents);
      const askPrices = asks.map((level) => level.cents);
      expect(bidPrices).toEqual([...bidPrices].sort((a, b) => a - b));
      expect(askPrices).toEqual([...askPrices].sort((a, b) => b - a));
      for (const level of [...bids, ...asks]) {
        expect(Number.isInteger(level.cents) && level.cents >= 1 && level.cents <= 99).toBe(true);
        expect(level.sharesMicro % 10_000n).toBe(0n);
      }
      if (bids.length > 0 && asks.length > 0) {
        expect((bids.at(-1)?.cents ?? 0) < (asks.at(-1)?.cents ?? 100)).toBe(true);
      }
    }
  });
});

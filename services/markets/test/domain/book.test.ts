import { describe, expect, it } from "vitest";
import { type Book, bookForOutcome, displayedMills, mirrorBook, walkBook } from "../../src/domain/book.ts";
import { LOT_MICRO_SHARES, MICRO } from "../../src/domain/units.ts";

const shares = (n: number) => BigInt(Math.round(n * 100)) * LOT_MICRO_SHARES;
const usd = (n: number) => BigInt(Math.round(n * 100)) * (MICRO / 100n);

/** Bids ascending, asks descending: the best of each side is last. */
const book: Book = {
  bids: [
    { cents: 35, sharesMicro: shares(300) },
    { cents: 36, sharesMicro: shares(200) },
    { cents: 37, sharesMicro: shares(100) },
  ],
  asks: [
    { cents: 41, sharesMicro: shares(300) },
    { cents: 40, sharesMicro: shares(200) },
    { cents: 39, sharesMicro: shares(100) },
  ],
};

describe("walking the book", () => {
  it("buys shares from the lowest ask up, level by level", () => {
    const walk = walkBook(book, { side: "buy", sharesMicro: shares(250) });
    expect(walk.fills.map((fill) => [fill.cents, fill.sharesMicro])).toEqual([
      [39, shares(100)],
      [40, shares(150)],
    ]);
    expect(walk.notionalMicro).toBe(usd(39 + 60));
    expect(walk.complete).toBe(true);
    expect(walk.book.asks).toEqual([
      { cents: 41, sharesMicro: shares(300) },
      { cents: 40, sharesMicro: shares(50) },
    ]);
    expect(walk.book.bids).toBe(book.bids);
  });

  it("spends a USD amount in whole lots and never more than the amount", () => {
    const walk = walkBook(book, { side: "buy", amountMicro: usd(100) });
    // 100 shares at 0.39 (39 USD), then 61 USD at 0.40 buys 152.5 shares.
    expect(walk.sharesMicro).toBe(shares(252.5));
    expect(walk.notionalMicro).toBe(usd(100));
    // 10.005 USD at 0.39 is 25.6538… shares: 25.65 fill, costing exactly 10.0035.
    const odd = walkBook(book, { side: "buy", amountMicro: 10_005_000n });
    expect(odd.sharesMicro).toBe(shares(25.65));
    expect(odd.notionalMicro).toBe(10_003_500n);
  });

  it("sells shares into the highest bid down", () => {
    const walk = walkBook(book, { side: "sell", sharesMicro: shares(150) });
    expect(walk.fills.map((fill) => fill.cents)).toEqual([37, 36]);
    expect(walk.notionalMicro).toBe(usd(37 + 18));
    expect(walk.book.bids.at(-1)).toEqual({ cents: 36, sharesMicro: shares(150) });
  });

  it("stops at the limit price and reports the order as incomplete", () => {
    const walk = walkBook(book, { side: "buy", sharesMicro: shares(500), limitCents: 40 });
    expect(walk.sharesMicro).toBe(shares(300));
    expect(walk.complete).toBe(false);
  });

  it("fills what the side holds and no more when the book runs out", () => {
    const walk = walkBook(book, { side: "buy", sharesMicro: shares(10_000) });
    expect(walk.sharesMicro).toBe(shares(600));
    expect(walk.book.asks).toEqual([]);
    expect(walk.complete).toBe(false);
  });

  it("fills nothing when the amount cannot buy one lot", () => {
    expect(walkBook(book, { side: "buy", amountMicro: 3_000n }).sharesMicro).toBe(0n);
  });

  it("leaves the book it was given untouched", () => {
    const before = structuredClone(book);
    walkBook(book, { side: "buy", sharesMicro: shares(550) });
    expect(book).toEqual(before);
  });
});

describe("price movement", () => {
  it("moves the displayed price up when a buy clears the best asks", () => {
    expect(displayedMills(book, 38)).toBe(380);
    const afterOne = walkBook(book, { side: "buy", sharesMicro: shares(100) }).book;
    expect(displayedMills(afterOne, 39)).toBe(385);
    const afterTwo = walkBook(book, { side: "buy", sharesMicro: shares(300) }).book;
    expect(displayedMills(afterTwo, 40)).toBe(390);
  });

  it("shows the last trade when the spread is wider than 0.10", () => {
    const wide: Book = {
      bids: [{ cents: 20, sharesMicro: shares(1) }],
      asks: [{ cents: 45, sharesMicro: shares(1) }],
    };
    expect(displayedMills(wide, 31)).toBe(310);
    expect(displayedMills(wide, undefined)).toBe(325);
  });

  it("mirrors a book for the complementary outcome, so both prices sum to one", () => {
    const no = mirrorBook(book);
    expect(no.asks.map((level) => level.cents)).toEqual([65, 64, 63]);
    expect(no.bids.map((level) => level.cents)).toEqual([59, 60, 61]);
    expect(mirrorBook(no)).toEqual(book);
    expect(displayedMills(book, undefined) + displayedMills(no, undefined)).toBe(1000);
  });

  it("buying the second outcome consumes the first outcome's bids", () => {
    const walk = walkBook(bookForOutcome(book, 1), { side: "buy", sharesMicro: shares(100) });
    expect(walk.fills[0]?.cents).toBe(63);
    const canonical = bookForOutcome(walk.book, 1);
    expect(canonical.bids.map((level) => level.cents)).toEqual([35, 36]);
    expect(canonical.asks).toEqual(book.asks);
  });
});

import { describe, expect, it } from "vitest";
import { walkBook } from "../../src/domain/book.ts";
import { slippage } from "../../src/domain/order-input.ts";
import {
  applyBuy,
  applyResolution,
  applySell,
  EMPTY_POSITION,
  resolutionPayoutMicro,
  valuePosition,
} from "../../src/domain/portfolio.ts";
import { formatMicro, LOT_MICRO_SHARES, parseMicro } from "../../src/domain/units.ts";

const micro = (text: string) => parseMicro(text) as bigint;

describe("average price and P&L", () => {
  it("keeps cents exact where floating point drifts", () => {
    // 0.1 + 0.2 !== 0.3 in floating point; ten buys of 0.1 shares at 0.01… sum exactly.
    let position = EMPTY_POSITION;
    for (let i = 0; i < 10; i++) position = applyBuy(position, LOT_MICRO_SHARES * 10n, micro("0.01"));
    position = applyBuy(position, LOT_MICRO_SHARES * 20n, micro("0.02"));
    expect(formatMicro(position.sharesMicro)).toBe("1.2");
    expect(formatMicro(position.costBasisMicro)).toBe("0.12");
    expect(0.1 + 0.2).not.toBe(0.3);
  });

  it("computes the average price as cost over shares", () => {
    const position = applyBuy(applyBuy(EMPTY_POSITION, micro("100"), micro("39")), micro("150"), micro("60"));
    expect(valuePosition(position, 400).averagePrice).toBe("0.396");
  });

  it("realises proceeds minus the pro-rata basis on a partial sell and loses nothing to rounding", () => {
    const bought = applyBuy(EMPTY_POSITION, micro("3"), micro("1"));
    const afterOne = applySell(bought, micro("1"), micro("0.5"));
    // A third of 1 USD is 0.333333(3): rounded half up to the micro-USD.
    expect(formatMicro(afterOne.costBasisMicro)).toBe("0.666667");
    expect(formatMicro(afterOne.realisedPnlMicro)).toBe("0.166667");
    const afterAll = applySell(afterOne, micro("2"), micro("1"));
    expect(afterAll.costBasisMicro).toBe(0n);
    // Bought for 1, sold for 1.5: exactly 0.5 realised in total.
    expect(formatMicro(afterAll.realisedPnlMicro)).toBe("0.5");
  });

  it("values an open position at the displayed price", () => {
    const position = applyBuy(EMPTY_POSITION, micro("200"), micro("74"));
    const valuation = valuePosition(position, 385);
    expect(formatMicro(valuation.marketValueMicro)).toBe("77");
    expect(formatMicro(valuation.unrealisedPnlMicro)).toBe("3");
  });

  it("refuses to sell more shares than held", () => {
    expect(() => applySell(EMPTY_POSITION, 1n, 0n)).toThrow(RangeError);
  });

  it("reports slippage of a buy that walked several levels", () => {
    const book = {
      bids: [],
      asks: [
        { cents: 42, sharesMicro: micro("100") },
        { cents: 40, sharesMicro: micro("100") },
      ],
    };
    const walk = walkBook(book, { side: "buy", sharesMicro: micro("150") });
    const slip = slippage("buy", 40, walk.notionalMicro, walk.sharesMicro);
    expect(formatMicro(slip.averageMicro)).toBe("0.406667");
    expect(formatMicro(slip.slippageMicro)).toBe("0.006667");
    expect(slip.slippageBps).toBe(167);
  });
});

describe("resolution payouts", () => {
  it("pays one USD per winning share and nothing per losing share", () => {
    expect(resolutionPayoutMicro(micro("252.5"), true)).toBe(micro("252.5"));
    expect(resolutionPayoutMicro(micro("252.5"), false)).toBe(0n);
  });

  it("closes the position and realises payout minus basis", () => {
    const position = applyBuy(EMPTY_POSITION, micro("250"), micro("97.5"));
    const won = applyResolution(position, true);
    expect(formatMicro(won.payoutMicro)).toBe("250");
    expect(won.position.sharesMicro).toBe(0n);
    expect(formatMicro(won.position.realisedPnlMicro)).toBe("152.5");
    const lost = applyResolution(position, false);
    expect(formatMicro(lost.position.realisedPnlMicro)).toBe("-97.5");
  });
});

import { describe, expect, it } from "vitest";
import { formatDecimalUnits, parseDecimalUnits } from "../src/decimal.ts";

describe("decimal amounts as integers of their smallest unit", () => {
  it("reads plain decimals exactly, at the given precision", () => {
    expect(parseDecimalUnits("12", 6)).toBe(12_000_000n);
    expect(parseDecimalUnits("0.000001", 6)).toBe(1n);
    expect(parseDecimalUnits("2500.50", 2)).toBe(250_050n);
    expect(parseDecimalUnits("7", 0)).toBe(7n);
    // Far beyond a double's exact integers: still exact.
    expect(parseDecimalUnits("123456789012345678.123456", 6)).toBe(123456789012345678123456n);
  });

  it("refuses signs, exponents, spaces, excess precision and too many whole digits", () => {
    for (const text of ["-1", "+1", "1e3", " 1", "1 ", "1.", ".5", "1,5", "", "0x10", "1.5.2"]) {
      expect(parseDecimalUnits(text, 6), text).toBeUndefined();
    }
    expect(parseDecimalUnits("0.0000001", 6)).toBeUndefined();
    expect(parseDecimalUnits("1.5", 0)).toBeUndefined();
    expect(parseDecimalUnits("12345678901", 6, { maxWholeDigits: 10 })).toBeUndefined();
    expect(parseDecimalUnits("1234567890", 6, { maxWholeDigits: 10 })).toBe(1_234_567_890_000_000n);
  });

  it("writes the shortest exact form, or every digit when fixed", () => {
    expect(formatDecimalUnits(1_500_000n, 6)).toBe("1.5");
    expect(formatDecimalUnits(0n, 6)).toBe("0");
    expect(formatDecimalUnits(-250n, 6)).toBe("-0.00025");
    expect(formatDecimalUnits(2550n, 2, { fixed: true })).toBe("25.50");
    expect(formatDecimalUnits(7n, 0, { fixed: true })).toBe("7");
    expect(formatDecimalUnits(5n, 3, { fixed: true })).toBe("0.005");
  });

  it("round-trips", () => {
    for (const units of [0n, 1n, 999_999n, 1_000_000n, 123_456_789n, 10n ** 30n + 7n]) {
      expect(parseDecimalUnits(formatDecimalUnits(units, 6), 6)).toBe(units);
    }
  });
});

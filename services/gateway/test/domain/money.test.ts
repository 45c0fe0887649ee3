import { describe, expect, test } from "vitest";
import { formatUsd, MAX_MICRO, parseUsd, usd } from "../../src/domain/money.ts";

describe("money", () => {
  test("decimal USD reads exactly as micro-USD", () => {
    expect(parseUsd("0")).toBe(0n);
    expect(parseUsd("12")).toBe(12_000_000n);
    expect(parseUsd("0.000001")).toBe(1n);
    expect(parseUsd("2500.50")).toBe(2_500_500_000n);
    expect(parseUsd(" 1.1 ")).toBe(1_100_000n);
    expect(parseUsd("0.1")! + parseUsd("0.2")!).toBe(parseUsd("0.3"));
  });

  test("anything but a plain non-negative amount with at most 6 decimals is refused", () => {
    for (const text of [
      "",
      "-1",
      "+1",
      "1e3",
      "1.",
      ".5",
      "0.0000001",
      "1,5",
      "NaN",
      "Infinity",
      "99999999999",
    ]) {
      expect(parseUsd(text), text).toBeUndefined();
    }
    expect(parseUsd("1000000000")).toBe(MAX_MICRO);
  });

  test("micro-USD prints as the shortest exact decimal", () => {
    expect(formatUsd(0n)).toBe("0");
    expect(formatUsd(1n)).toBe("0.000001");
    expect(formatUsd(1_500_000n)).toBe("1.5");
    expect(formatUsd(250_000n)).toBe("0.25");
    expect(formatUsd(-250n)).toBe("-0.00025");
    expect(formatUsd(12_345_678_901_234_567n)).toBe("12345678901.234567");
    expect(usd(0n)).toEqual({ amount: "0", currency: "USD" });
  });

  test("printing and reading round-trip", () => {
    for (const micro of [0n, 1n, 999_999n, 1_000_000n, 123_456_789n])
      expect(parseUsd(formatUsd(micro))).toBe(micro);
  });
});

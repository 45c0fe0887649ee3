import { describe, expect, test } from "vitest";
import { parseCreditAmount } from "../../src/self-serve/credit-amount.ts";

describe("the amount of credit asked for", () => {
  test("plain decimals from 0.01 to 100 USD are read exactly, in micro-USD", () => {
    expect(parseCreditAmount("0.50")).toEqual({ micro: 500_000n, usd: "0.5" });
    expect(parseCreditAmount("0.01")).toEqual({ micro: 10_000n, usd: "0.01" });
    expect(parseCreditAmount("100")).toEqual({ micro: 100_000_000n, usd: "100" });
    expect(parseCreditAmount("12.345678")).toEqual({ micro: 12_345_678n, usd: "12.345678" });
  });

  test("anything else is refused with the reason: bounds, precision, signs, exponents, spaces, leading zeros", () => {
    for (const text of [
      "0.009999",
      "100.000001",
      "1000",
      "0",
      "0.1234567",
      "-1",
      "+1",
      "1e2",
      " 1",
      "1 ",
      "01",
      "1.",
      ".5",
      "",
      "0x10",
      "1,5",
      "١",
    ]) {
      expect(parseCreditAmount(text), text).toHaveProperty("refused");
    }
  });
});

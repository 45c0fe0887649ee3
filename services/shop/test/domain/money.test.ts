import { describe, expect, test } from "vitest";
import { isCurrency, PriceError, toMinorUnits, toPrice } from "../../src/domain/money.ts";

describe("prices in a currency's minor units", () => {
  test("decimal amounts become minor units by the currency's own digits", () => {
    expect(toMinorUnits("25.5", "EUR")).toBe(2550);
    expect(toMinorUnits("25", "EUR")).toBe(2500);
    expect(toMinorUnits("0.05", "EUR")).toBe(5);
    expect(toMinorUnits("1500", "JPY")).toBe(1500);
    expect(toMinorUnits("1.234", "BHD")).toBe(1234);
  });

  test.each([
    ["more decimals than the currency has", "1.5", "JPY"],
    ["a negative amount", "-1", "EUR"],
    ["an exponent", "1e3", "EUR"],
    ["a fraction of a cent", "2.505", "EUR"],
  ])("%s is refused", (_what, amount, currency) => {
    expect(() => toMinorUnits(amount, currency)).toThrow(PriceError);
  });

  test("minor units are shown as a decimal string with the currency", () => {
    expect(toPrice(2550, "EUR")).toEqual({ amount: "25.50", currency: "EUR" });
    expect(toPrice(5, "EUR")).toEqual({ amount: "0.05", currency: "EUR" });
    expect(toPrice(1500, "JPY")).toEqual({ amount: "1500", currency: "JPY" });
    expect(toPrice(1234, "BHD")).toEqual({ amount: "1.234", currency: "BHD" });
  });

  test("only known ISO 4217 codes are currencies", () => {
    expect(isCurrency("EUR")).toBe(true);
    expect(isCurrency("INR")).toBe(true);
    expect(isCurrency("eur")).toBe(false);
    expect(isCurrency("XYZ")).toBe(false);
  });
});

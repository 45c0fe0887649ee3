import { describe, expect, it } from "vitest";
import { usdToAtomic } from "../../src/domain/money.ts";
import { DEPTHS, dynamicPrice, PREMIUM_CATEGORIES, PRICES, premiumCharge } from "../../src/domain/pricing.ts";

describe("pricing", () => {
  it("prices the dynamic route by depth, as DECISIONS says, never above its cap", () => {
    expect(DEPTHS.map(dynamicPrice)).toEqual(["0.01", "0.03", "0.05"]);
    for (const depth of DEPTHS)
      expect(usdToAtomic(dynamicPrice(depth))).toBeLessThanOrEqual(usdToAtomic(PRICES.dynamicMax));
  });

  it("charges every premium category more than zero and at most the authorised maximum", () => {
    for (const category of PREMIUM_CATEGORIES) {
      const charge = usdToAtomic(premiumCharge(category));
      expect(charge).toBeGreaterThan(0n);
      expect(charge).toBeLessThanOrEqual(usdToAtomic(PRICES.premiumMax));
    }
    expect(usdToAtomic(PRICES.membershipCharge)).toBeLessThanOrEqual(usdToAtomic(PRICES.membershipMax));
  });

  it("bills whole units within each session's maximum", () => {
    expect(usdToAtomic(PRICES.llmSessionMax) % usdToAtomic(PRICES.llmUnit)).toBe(0n);
    expect(usdToAtomic(PRICES.streamSessionMax) / usdToAtomic(PRICES.streamUnit)).toBe(500n);
  });
});

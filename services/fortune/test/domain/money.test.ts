import { describe, expect, it } from "vitest";
import { atomicToUsd, usdToAtomic } from "../../src/domain/money.ts";

describe("money", () => {
  it("converts decimal USD to atomic units exactly, and back to the shortest form", () => {
    expect(usdToAtomic("0.001")).toBe(1000n);
    expect(usdToAtomic("1")).toBe(1_000_000n);
    expect(usdToAtomic("0.000001")).toBe(1n);
    expect(usdToAtomic("12.5")).toBe(12_500_000n);
    expect(atomicToUsd(1000n)).toBe("0.001");
    expect(atomicToUsd(12_500_000n)).toBe("12.5");
    expect(atomicToUsd(0n)).toBe("0");
    // 0.1 + 0.2 in floating point is 0.30000000000000004; in atomic units it is exact.
    expect(atomicToUsd(usdToAtomic("0.1") + usdToAtomic("0.2"))).toBe("0.3");
  });

  it("refuses more precision than the token has, and anything that is not an amount", () => {
    expect(() => usdToAtomic("0.0000001")).toThrow(/decimals/);
    for (const bad of ["", "-1", "1e3", "0x10", " 1", "1.", ".5", "abc"])
      expect(() => usdToAtomic(bad), bad).toThrow();
  });
});

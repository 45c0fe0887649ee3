import { ConfigError } from "@app/core";
import { describe, expect, it } from "vitest";
import { loadMarketsConfig } from "../src/config.ts";

describe("markets config", () => {
  it("defaults to port 3005, 10,000 USD accounts and no operator token", () => {
    const config = loadMarketsConfig({});
    expect(config.port).toBe(3005);
    expect(config.startingBalanceMicro).toBe(10_000_000_000n);
    expect(config.operatorToken).toBeUndefined();
  });

  it("reads the starting balance exactly", () => {
    expect(loadMarketsConfig({ MARKETS_STARTING_BALANCE: "2500.123456" }).startingBalanceMicro).toBe(
      2_500_123_456n,
    );
  });

  it("refuses a short operator token, a bad balance and an unknown MARKETS_ variable", () => {
    for (const env of [
      { MARKETS_OPERATOR_TOKEN: "short" },
      { MARKETS_STARTING_BALANCE: "0" },
      { MARKETS_STARTING_BALANCE: "ten" },
      { MARKETS_STARTNG_BALANCE: "10" },
    ]) {
      expect(() => loadMarketsConfig(env), JSON.stringify(env)).toThrow(ConfigError);
    }
  });
});

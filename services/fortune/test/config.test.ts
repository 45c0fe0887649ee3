import { ConfigError } from "@app/core";
import { describe, expect, it } from "vitest";
import { loadFortuneConfig } from "../src/config.ts";

const HOSTED = {
  FORTUNE_RAILS: "hosted",
  FORTUNE_FACILITATOR_URL: "https://facilitator.example",
  FORTUNE_X402_NETWORK: "eip155:8453",
  FORTUNE_X402_RPC_URL: "https://base.example/rpc",
  FORTUNE_X402_ASSET: `0x${"a1".repeat(20)}`,
  FORTUNE_X402_ASSET_NAME: "USD Coin",
  FORTUNE_X402_ASSET_VERSION: "2",
  FORTUNE_PAY_TO: `0x${"b2".repeat(20)}`,
  FORTUNE_MPP_RPC_URL: "https://tempo.example/rpc",
  FORTUNE_MPP_CURRENCY: `0x${"c3".repeat(20)}`,
  FORTUNE_MPP_OPERATOR_KEY: `0x${"d4".repeat(32)}`,
  FORTUNE_MPP_SECRET_KEY: "a-hosted-secret-of-at-least-thirty-two-chars",
};

const problems = (env: Record<string, string>) => {
  try {
    loadFortuneConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe("fortune configuration", () => {
  it("hosted mode names every missing variable", () => {
    const { FORTUNE_X402_RPC_URL: _rpc, FORTUNE_PAY_TO: _payTo, ...partial } = HOSTED;
    expect(problems(partial)).toEqual([
      "FORTUNE_X402_RPC_URL: required when FORTUNE_RAILS=hosted",
      "FORTUNE_PAY_TO: required when FORTUNE_RAILS=hosted",
    ]);
  });

  it("hosted mode authenticates to the facilitator with a CDP key, a bearer token, or nothing", () => {
    const cdp = loadFortuneConfig({
      ...HOSTED,
      FORTUNE_CDP_API_KEY_ID: "key-1",
      FORTUNE_CDP_API_KEY_SECRET: "s",
    });
    expect(cdp.rails).toMatchObject({ facilitatorAuth: { kind: "cdp", keyId: "key-1" } });
    expect(loadFortuneConfig({ ...HOSTED, FORTUNE_FACILITATOR_TOKEN: "t" }).rails).toMatchObject({
      facilitatorAuth: { kind: "bearer" },
    });
    expect(loadFortuneConfig(HOSTED).rails).toMatchObject({ facilitatorAuth: { kind: "none" } });
    expect(problems({ ...HOSTED, FORTUNE_CDP_API_KEY_ID: "key-1" })[0]).toMatch(/set both, or neither/);
  });

  it("listening beyond loopback needs the public URL, which names the SIWX domain and the MPP realm", () => {
    expect(problems({ HOST: "0.0.0.0" })).toEqual([
      "FORTUNE_PUBLIC_URL: required when HOST (0.0.0.0) is not a loopback address",
    ]);
    const config = loadFortuneConfig({ HOST: "0.0.0.0", FORTUNE_PUBLIC_URL: "https://fortune.example.com/" });
    expect(config.publicUrl).toBe("https://fortune.example.com");
    expect(config.mppRealm).toBe("fortune.example.com");
    expect(loadFortuneConfig({ FORTUNE_MPP_REALM: "api.example" }).mppRealm).toBe("api.example");
  });
});

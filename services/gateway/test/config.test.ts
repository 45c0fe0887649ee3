import { ConfigError } from "@app/core";
import { describe, expect, test } from "vitest";
import { loadGatewayConfig } from "../src/config.ts";

describe("gateway configuration", () => {
  test("defaults to the local upstream ports and the documented limits", () => {
    const config = loadGatewayConfig({});
    expect(config.port).toBe(3003);
    expect(config.providerUrls.shop.href).toBe("http://127.0.0.1:3004/");
    expect(config.providerUrls.markets.href).toBe("http://127.0.0.1:3005/");
    expect(config.providerUrls.publisher.href).toBe("http://127.0.0.1:3002/");
    expect(config.upstreamLimits).toEqual({
      connectTimeoutMs: 2000,
      timeoutMs: 10000,
      maxResponseBytes: 1048576,
    });
    expect(config.runsPerMinute).toBe(300);
  });

  test("reads each setting from its GATEWAY_ variable", () => {
    const config = loadGatewayConfig({
      GATEWAY_SHOP_URL: "https://shop.example/base",
      GATEWAY_UPSTREAM_TIMEOUT_MS: "2500",
      GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS: "100",
      GATEWAY_UPSTREAM_MAX_RESPONSE_BYTES: "2048",
      GATEWAY_RATE_LIMIT_PER_MINUTE: "60",
    });
    expect(config.providerUrls.shop.href).toBe("https://shop.example/base");
    expect(config.upstreamLimits).toEqual({ connectTimeoutMs: 100, timeoutMs: 2500, maxResponseBytes: 2048 });
    expect(config.runsPerMinute).toBe(60);
  });

  test("self-serve rails: the local chain by default, hosted ones named variable by variable, or off", () => {
    expect(loadGatewayConfig({}).rails).toEqual({ mode: "local", chainPort: 8545, chainId: 1337 });
    expect(loadGatewayConfig({ GATEWAY_RAILS: "off" }).rails).toEqual({ mode: "off" });
    const problems = (() => {
      try {
        loadGatewayConfig({
          GATEWAY_RAILS: "hosted",
          GATEWAY_FACILITATOR_URL: "https://facilitator.example",
        });
      } catch (error) {
        return (error as ConfigError).problems;
      }
      return [];
    })();
    expect(problems).toContain("GATEWAY_PAY_TO: required when GATEWAY_RAILS=hosted");
    expect(problems).not.toContain("GATEWAY_FACILITATOR_URL: required when GATEWAY_RAILS=hosted");
    const hosted = loadGatewayConfig({
      GATEWAY_RAILS: "hosted",
      GATEWAY_PUBLIC_URL: "https://gateway.example/",
      GATEWAY_FACILITATOR_URL: "https://facilitator.example",
      GATEWAY_FACILITATOR_TOKEN: "t",
      GATEWAY_X402_NETWORK: "eip155:8453",
      GATEWAY_X402_RPC_URL: "https://base.example/rpc",
      GATEWAY_X402_ASSET: `0x${"a1".repeat(20)}`,
      GATEWAY_X402_ASSET_NAME: "USD Coin",
      GATEWAY_X402_ASSET_VERSION: "2",
      GATEWAY_PAY_TO: `0x${"b2".repeat(20)}`,
      GATEWAY_MPP_RPC_URL: "https://tempo.example/rpc",
      GATEWAY_MPP_CURRENCY: `0x${"c3".repeat(20)}`,
      GATEWAY_MPP_OPERATOR_KEY: `0x${"d4".repeat(32)}`,
      GATEWAY_MPP_SECRET_KEY: "a-hosted-secret-of-at-least-thirty-two-chars",
    });
    expect(hosted.rails).toMatchObject({
      mode: "hosted",
      network: "eip155:8453",
      facilitatorAuth: { kind: "bearer" },
    });
    expect(hosted.publicUrl).toBe("https://gateway.example");
    expect(hosted.mppRealm).toBe("gateway.example");
  });

  test("refuses bad values and unknown GATEWAY_ variables, naming each", () => {
    for (const env of [
      { GATEWAY_SHOP_URL: "ftp://shop" },
      { GATEWAY_MARKETS_URL: "http://user:pw@host" },
      { GATEWAY_PUBLISHER_URL: "http://host/?q=1" },
      { GATEWAY_RATE_LIMIT_PER_MINUTE: "0" },
      { GATEWAY_UPSTREAM_TIMEOUT_MS: "soon" },
      { GATEWAY_SHOPP_URL: "http://x" },
    ]) {
      const name = Object.keys(env)[0] as string;
      expect(() => loadGatewayConfig(env), name).toThrow(ConfigError);
      try {
        loadGatewayConfig(env);
      } catch (error) {
        expect((error as ConfigError).problems.join("\n")).toContain(name);
      }
    }
  });
});

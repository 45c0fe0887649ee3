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

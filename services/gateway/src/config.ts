import { type Env, loadConfig, settings, z } from "@app/core";
import { type BaseServiceConfig, baseSettings, toBaseConfig } from "@app/runtime";
import type { UpstreamLimits } from "./upstream/client.ts";

/** A provider's base URL: http(s), no credentials, query or fragment (a path prefix is allowed). */
const baseUrl = (fallback: string) =>
  settings
    .httpBaseUrl()
    .default(fallback)
    .transform((text) => new URL(text));

const { positiveInt } = settings;

const variables = z.object({
  ...baseSettings("GATEWAY", 3003),
  GATEWAY_SHOP_URL: baseUrl("http://127.0.0.1:3004"),
  GATEWAY_MARKETS_URL: baseUrl("http://127.0.0.1:3005"),
  GATEWAY_PUBLISHER_URL: baseUrl("http://127.0.0.1:3002"),
  GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS: positiveInt(2_000, 60_000),
  GATEWAY_UPSTREAM_TIMEOUT_MS: positiveInt(10_000, 300_000),
  GATEWAY_UPSTREAM_MAX_RESPONSE_BYTES: positiveInt(1024 * 1024, 64 * 1024 * 1024),
  GATEWAY_RATE_LIMIT_PER_MINUTE: positiveInt(300, 1_000_000),
});

export type GatewayConfig = BaseServiceConfig & {
  /** Each provider's base URL, by provider id. */
  providerUrls: { shop: URL; markets: URL; publisher: URL };
  upstreamLimits: UpstreamLimits;
  /** Runs a gateway key may start per minute (token bucket, burst of as many). */
  runsPerMinute: number;
};

/** Reads the gateway service's settings from the environment, once, failing fast on bad values. */
export function loadGatewayConfig(env: Env): GatewayConfig {
  const parsed = loadConfig(variables, env, { prefixes: ["GATEWAY_"] });
  return {
    ...toBaseConfig(parsed, parsed.GATEWAY_PORT),
    providerUrls: {
      shop: parsed.GATEWAY_SHOP_URL,
      markets: parsed.GATEWAY_MARKETS_URL,
      publisher: parsed.GATEWAY_PUBLISHER_URL,
    },
    upstreamLimits: {
      connectTimeoutMs: parsed.GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS,
      timeoutMs: parsed.GATEWAY_UPSTREAM_TIMEOUT_MS,
      maxResponseBytes: parsed.GATEWAY_UPSTREAM_MAX_RESPONSE_BYTES,
    },
    runsPerMinute: parsed.GATEWAY_RATE_LIMIT_PER_MINUTE,
  };
}

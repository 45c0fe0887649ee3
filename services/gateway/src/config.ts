import { ConfigError, type Env, loadConfig, settings, z } from "@app/core";
import { type HostedRails, hostedRailsFrom, hostedRailsSettings } from "@app/payments";
import { type BaseServiceConfig, baseSettings, toBaseConfig } from "@app/runtime";
import { PROVIDERS } from "./registry/providers.ts";
import { parseToolPrices } from "./registry/tool-prices.ts";
import type { UpstreamLimits } from "./upstream/client.ts";

/** A provider's base URL: http(s), no credentials, query or fragment (a path prefix is allowed). */
const baseUrl = (fallback: string) =>
  settings
    .httpBaseUrl()
    .default(fallback)
    .transform((text) => new URL(text));

const { positiveInt } = settings;

/** `GATEWAY_TOOL_PRICES`: tools' prices by name, checked strictly against the declared tools. */
const toolPrices = z
  .string()
  .optional()
  .transform((text, context) => {
    if (text === undefined) return new Map<string, bigint>();
    const read = parseToolPrices(text, PROVIDERS);
    if ("prices" in read) return read.prices;
    for (const problem of read.problems) context.addIssue({ code: "custom", message: problem });
    return z.NEVER;
  });

const variables = z.object({
  ...baseSettings("GATEWAY", 3003),
  GATEWAY_SHOP_URL: baseUrl("http://127.0.0.1:3004"),
  GATEWAY_MARKETS_URL: baseUrl("http://127.0.0.1:3005"),
  GATEWAY_PUBLISHER_URL: baseUrl("http://127.0.0.1:3002"),
  GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS: positiveInt(2_000, 60_000),
  GATEWAY_UPSTREAM_TIMEOUT_MS: positiveInt(10_000, 300_000),
  GATEWAY_UPSTREAM_MAX_RESPONSE_BYTES: positiveInt(1024 * 1024, 64 * 1024 * 1024),
  GATEWAY_RATE_LIMIT_PER_MINUTE: positiveInt(300, 1_000_000),
  GATEWAY_TOOL_PRICES: toolPrices,
  GATEWAY_PUBLIC_URL: settings.httpBaseUrl().optional(),
  GATEWAY_RAILS: z.enum(["local", "hosted", "off"]).default("local"),
  GATEWAY_CHAIN_PORT: settings.port(8545),
  GATEWAY_CHAIN_ID: z.coerce.number().int().positive().default(1337),
  GATEWAY_SETTLEMENT_TIMEOUT_SECONDS: z.coerce.number().positive().default(30),
  GATEWAY_MPP_REALM: z.string().min(1).optional(),
  ...hostedRailsSettings("GATEWAY"),
});

/**
 * Where the payment rails of self-serve credit run: the local chain a launcher gives the service
 * (`createGatewayService({ localChain })`, on this port and chain id), hosted networks from
 * configuration, or none (`off`: no self-serve routes).
 */
export type GatewayRailsConfig =
  | { mode: "local"; chainPort: number; chainId: number }
  | ({ mode: "hosted" } & HostedRails)
  | { mode: "off" };

export type GatewayConfig = BaseServiceConfig & {
  /** Each provider's base URL, by provider id. */
  providerUrls: { shop: URL; markets: URL; publisher: URL };
  upstreamLimits: UpstreamLimits;
  /** Runs a gateway key may start per minute (token bucket, burst of as many), unless its policy sets its own. */
  runsPerMinute: number;
  /** Prices replacing the declared ones (micro-USD), by tool name `"provider endpoint METHOD"`. */
  toolPrices: ReadonlyMap<string, bigint>;
  /** The origin clients reach the gateway at (SIWX domain and URI, 402 resources); default: where it listens. */
  publicUrl?: string;
  rails: GatewayRailsConfig;
  /** The realm MPP challenges name (the public host by default). */
  mppRealm: string;
  /** Local: how long the facilitator waits for a settlement's receipt before calling it pending. */
  settlementTimeoutMs: number;
};

type Variables = z.infer<typeof variables>;

function railsConfig(env: Variables): GatewayRailsConfig {
  if (env.GATEWAY_RAILS === "off") return { mode: "off" };
  if (env.GATEWAY_RAILS === "local") {
    return { mode: "local", chainPort: env.GATEWAY_CHAIN_PORT, chainId: env.GATEWAY_CHAIN_ID };
  }
  return { mode: "hosted", ...hostedRailsFrom("GATEWAY", env) };
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/;

/**
 * The public origin, required when hosted rails take payments on a gateway listening beyond
 * loopback: sign-ins and 402 resources name it, and the listening address is nobody's origin.
 */
function publicUrl(env: Variables, host: string, rails: GatewayRailsConfig): string | undefined {
  const url = env.GATEWAY_PUBLIC_URL?.replace(/\/$/, "");
  if (!url && rails.mode === "hosted" && !LOOPBACK.test(host)) {
    throw new ConfigError([
      `GATEWAY_PUBLIC_URL: required when GATEWAY_RAILS=hosted and HOST (${host}) is not a loopback address`,
    ]);
  }
  return url;
}

/** Reads the gateway service's settings from the environment, once, failing fast on bad values. */
export function loadGatewayConfig(env: Env): GatewayConfig {
  const parsed = loadConfig(variables, env, { prefixes: ["GATEWAY_"] });
  const base = toBaseConfig(parsed, parsed.GATEWAY_PORT);
  const rails = railsConfig(parsed);
  return {
    ...base,
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
    toolPrices: parsed.GATEWAY_TOOL_PRICES,
    publicUrl: publicUrl(parsed, base.host, rails),
    rails,
    mppRealm: parsed.GATEWAY_MPP_REALM ?? new URL(parsed.GATEWAY_PUBLIC_URL ?? "http://gateway").host,
    settlementTimeoutMs: parsed.GATEWAY_SETTLEMENT_TIMEOUT_SECONDS * 1000,
  };
}

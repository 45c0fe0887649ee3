import { ConfigError, type Env, loadConfig, settings, z } from "@app/core";
import { type HostedRails, hostedRailsFrom, hostedRailsSettings } from "@app/payments";
import { type BaseServiceConfig, baseSettings, toBaseConfig } from "@app/runtime";

const variables = z.object({
  ...baseSettings("FORTUNE", 3001),
  FORTUNE_PUBLIC_URL: z.url().optional(),
  FORTUNE_RAILS: z.enum(["local", "hosted"]).default("local"),
  FORTUNE_CHAIN_PORT: settings.port(8545),
  FORTUNE_CHAIN_ID: z.coerce.number().int().positive().default(1337),
  FORTUNE_SETTLEMENT_TIMEOUT_SECONDS: z.coerce.number().positive().default(30),
  ...hostedRailsSettings("FORTUNE"),
  FORTUNE_MPP_REALM: z.string().min(1).optional(),
  FORTUNE_STREAM_VOUCHER_WAIT_SECONDS: z.coerce.number().positive().default(30),
  FORTUNE_SESSION_SETTLE_SECONDS: z.coerce.number().positive().default(60),
  FORTUNE_PREMIUM_LIMIT: z.coerce.number().int().positive().default(3),
  FORTUNE_PREMIUM_WINDOW_HOURS: z.coerce.number().positive().default(24),
  FORTUNE_TEXT_URL: z.url().optional(),
  FORTUNE_TEXT_API_KEY: z.string().min(1).optional(),
  FORTUNE_TEXT_MODEL: z.string().min(1).default("gpt-4o-mini"),
});

/** The hosted rails: a facilitator and networks from config; nothing local is started. */
export type HostedRailsConfig = { mode: "hosted" } & HostedRails;

/**
 * Local rails: the chain a launcher provides (`createFortuneService({ localChain })`), started on
 * this port and chain id; the service itself never starts one.
 */
export type LocalRailsConfig = { mode: "local"; chainPort: number; chainId: number };

/** Where the rails run: a local chain a launcher provides, or hosted networks from config. */
export type RailsConfig = LocalRailsConfig | HostedRailsConfig;

export type FortuneConfig = BaseServiceConfig & {
  /** The origin clients reach the service at (SIWX domain and URI are checked against it); default: where it listens. */
  publicUrl?: string;
  /** The realm MPP challenges name (the public host by default). */
  mppRealm: string;
  rails: RailsConfig;
  premiumLimit: { perCategory: number; windowMs: number };
  /** Local: how long the facilitator waits for a settlement's receipt before calling it pending. */
  settlementTimeoutMs: number;
  /** How long a stream waits for the voucher paying its next token before it ends. */
  voucherWaitMs: number;
  /** MPP session vouchers are settled on chain at most this long after they were billed. */
  sessionSettleMs: number;
  text?: { baseUrl: string; apiKey?: string; model: string };
};

type Variables = z.infer<typeof variables>;

function railsConfig(env: Variables): RailsConfig {
  if (env.FORTUNE_RAILS === "local") {
    return { mode: "local", chainPort: env.FORTUNE_CHAIN_PORT, chainId: env.FORTUNE_CHAIN_ID };
  }
  return { mode: "hosted", ...hostedRailsFrom("FORTUNE", env) };
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/;

/**
 * The public origin, required when the service listens beyond loopback: SIWX messages and 402
 * resources name it, and the listening address (`0.0.0.0:3001`) is nobody's origin.
 */
function publicUrl(env: Variables, host: string): string | undefined {
  const url = env.FORTUNE_PUBLIC_URL?.replace(/\/$/, "");
  if (!url && !LOOPBACK.test(host)) {
    throw new ConfigError([`FORTUNE_PUBLIC_URL: required when HOST (${host}) is not a loopback address`]);
  }
  return url;
}

/** Reads the fortune service's settings from the environment, once, failing fast on bad values. */
export function loadFortuneConfig(env: Env): FortuneConfig {
  const parsed = loadConfig(variables, env, { prefixes: ["FORTUNE_"] });
  const base = toBaseConfig(parsed, parsed.FORTUNE_PORT);
  return {
    ...base,
    publicUrl: publicUrl(parsed, base.host),
    mppRealm: parsed.FORTUNE_MPP_REALM ?? new URL(parsed.FORTUNE_PUBLIC_URL ?? "http://fortune").host,
    rails: railsConfig(parsed),
    premiumLimit: {
      perCategory: parsed.FORTUNE_PREMIUM_LIMIT,
      windowMs: parsed.FORTUNE_PREMIUM_WINDOW_HOURS * 3600_000,
    },
    settlementTimeoutMs: parsed.FORTUNE_SETTLEMENT_TIMEOUT_SECONDS * 1000,
    voucherWaitMs: parsed.FORTUNE_STREAM_VOUCHER_WAIT_SECONDS * 1000,
    sessionSettleMs: parsed.FORTUNE_SESSION_SETTLE_SECONDS * 1000,
    text: parsed.FORTUNE_TEXT_URL
      ? {
          baseUrl: parsed.FORTUNE_TEXT_URL,
          apiKey: parsed.FORTUNE_TEXT_API_KEY,
          model: parsed.FORTUNE_TEXT_MODEL,
        }
      : undefined,
  };
}

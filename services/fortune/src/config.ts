import { ConfigError, type Env, loadConfig, settings, z } from "@app/core";
import { type BaseServiceConfig, baseSettings, toBaseConfig } from "@app/runtime";

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte address");
const privateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte private key");

const variables = z.object({
  ...baseSettings("FORTUNE", 3001),
  FORTUNE_PUBLIC_URL: z.url().optional(),
  FORTUNE_RAILS: z.enum(["local", "hosted"]).default("local"),
  FORTUNE_CHAIN_PORT: settings.port(8545),
  FORTUNE_CHAIN_ID: z.coerce.number().int().positive().default(1337),
  FORTUNE_FACILITATOR_URL: z.url().optional(),
  FORTUNE_FACILITATOR_TOKEN: z.string().min(1).optional(),
  FORTUNE_X402_NETWORK: z
    .string()
    .regex(/^eip155:\d+$/, "must be a CAIP-2 EVM network like eip155:8453")
    .optional(),
  FORTUNE_X402_ASSET: address.optional(),
  FORTUNE_X402_ASSET_NAME: z.string().min(1).optional(),
  FORTUNE_X402_ASSET_VERSION: z.string().min(1).optional(),
  FORTUNE_PAY_TO: address.optional(),
  FORTUNE_MPP_RPC_URL: z.url().optional(),
  FORTUNE_MPP_CHAIN_ID: z.coerce.number().int().positive().default(4217),
  FORTUNE_MPP_CURRENCY: address.optional(),
  FORTUNE_MPP_OPERATOR_KEY: privateKey.optional(),
  FORTUNE_MPP_SECRET_KEY: z.string().min(32, "must be at least 32 characters").optional(),
  FORTUNE_STREAM_VOUCHER_WAIT_SECONDS: z.coerce.number().positive().default(30),
  FORTUNE_PREMIUM_LIMIT: z.coerce.number().int().positive().default(3),
  FORTUNE_PREMIUM_WINDOW_HOURS: z.coerce.number().positive().default(24),
  FORTUNE_TEXT_URL: z.url().optional(),
  FORTUNE_TEXT_API_KEY: z.string().min(1).optional(),
  FORTUNE_TEXT_MODEL: z.string().min(1).default("gpt-4o-mini"),
});

/** Where the rails run: a local chain started by the service, or hosted networks from config. */
export type RailsConfig =
  | { mode: "local"; chainPort: number; chainId: number }
  | {
      mode: "hosted";
      facilitatorUrl: string;
      facilitatorToken?: string;
      network: `eip155:${number}`;
      asset: { address: `0x${string}`; name: string; version: string };
      payTo: `0x${string}`;
      mpp: {
        rpcUrl: string;
        chainId: number;
        currency: `0x${string}`;
        operatorKey: `0x${string}`;
        secretKey: string;
      };
    };

export type FortuneConfig = BaseServiceConfig & {
  /** The origin clients reach the service at (SIWX domain and URI are checked against it); default: where it listens. */
  publicUrl?: string;
  rails: RailsConfig;
  premiumLimit: { perCategory: number; windowMs: number };
  /** How long a stream waits for the voucher paying its next token before it ends. */
  voucherWaitMs: number;
  text?: { baseUrl: string; apiKey?: string; model: string };
};

type Variables = z.infer<typeof variables>;

const HOSTED_REQUIRED = [
  "FORTUNE_FACILITATOR_URL",
  "FORTUNE_X402_NETWORK",
  "FORTUNE_X402_ASSET",
  "FORTUNE_X402_ASSET_NAME",
  "FORTUNE_X402_ASSET_VERSION",
  "FORTUNE_PAY_TO",
  "FORTUNE_MPP_RPC_URL",
  "FORTUNE_MPP_CURRENCY",
  "FORTUNE_MPP_OPERATOR_KEY",
  "FORTUNE_MPP_SECRET_KEY",
] as const satisfies readonly (keyof Variables)[];

function railsConfig(env: Variables): RailsConfig {
  if (env.FORTUNE_RAILS === "local") {
    return { mode: "local", chainPort: env.FORTUNE_CHAIN_PORT, chainId: env.FORTUNE_CHAIN_ID };
  }
  const missing = HOSTED_REQUIRED.filter((name) => env[name] === undefined);
  if (missing.length > 0) {
    throw new ConfigError(missing.map((name) => `${name}: required when FORTUNE_RAILS=hosted`));
  }
  return {
    mode: "hosted",
    facilitatorUrl: env.FORTUNE_FACILITATOR_URL as string,
    facilitatorToken: env.FORTUNE_FACILITATOR_TOKEN,
    network: env.FORTUNE_X402_NETWORK as `eip155:${number}`,
    asset: {
      address: env.FORTUNE_X402_ASSET as `0x${string}`,
      name: env.FORTUNE_X402_ASSET_NAME as string,
      version: env.FORTUNE_X402_ASSET_VERSION as string,
    },
    payTo: env.FORTUNE_PAY_TO as `0x${string}`,
    mpp: {
      rpcUrl: env.FORTUNE_MPP_RPC_URL as string,
      chainId: env.FORTUNE_MPP_CHAIN_ID,
      currency: env.FORTUNE_MPP_CURRENCY as `0x${string}`,
      operatorKey: env.FORTUNE_MPP_OPERATOR_KEY as `0x${string}`,
      secretKey: env.FORTUNE_MPP_SECRET_KEY as string,
    },
  };
}

/** Reads the fortune service's settings from the environment, once, failing fast on bad values. */
export function loadFortuneConfig(env: Env): FortuneConfig {
  const parsed = loadConfig(variables, env, { prefixes: ["FORTUNE_"] });
  const base = toBaseConfig(parsed, parsed.FORTUNE_PORT);
  return {
    ...base,
    publicUrl: parsed.FORTUNE_PUBLIC_URL?.replace(/\/$/, ""),
    rails: railsConfig(parsed),
    premiumLimit: {
      perCategory: parsed.FORTUNE_PREMIUM_LIMIT,
      windowMs: parsed.FORTUNE_PREMIUM_WINDOW_HOURS * 3600_000,
    },
    voucherWaitMs: parsed.FORTUNE_STREAM_VOUCHER_WAIT_SECONDS * 1000,
    text: parsed.FORTUNE_TEXT_URL
      ? {
          baseUrl: parsed.FORTUNE_TEXT_URL,
          apiKey: parsed.FORTUNE_TEXT_API_KEY,
          model: parsed.FORTUNE_TEXT_MODEL,
        }
      : undefined,
  };
}

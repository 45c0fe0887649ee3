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
  FORTUNE_SETTLEMENT_TIMEOUT_SECONDS: z.coerce.number().positive().default(30),
  FORTUNE_FACILITATOR_URL: z.url().optional(),
  FORTUNE_FACILITATOR_TOKEN: z.string().min(1).optional(),
  FORTUNE_CDP_API_KEY_ID: z.string().min(1).optional(),
  FORTUNE_CDP_API_KEY_SECRET: z.string().min(1).optional(),
  FORTUNE_X402_RPC_URL: z.url().optional(),
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
  FORTUNE_MPP_REALM: z.string().min(1).optional(),
  FORTUNE_STREAM_VOUCHER_WAIT_SECONDS: z.coerce.number().positive().default(30),
  FORTUNE_SESSION_SETTLE_SECONDS: z.coerce.number().positive().default(60),
  FORTUNE_PREMIUM_LIMIT: z.coerce.number().int().positive().default(3),
  FORTUNE_PREMIUM_WINDOW_HOURS: z.coerce.number().positive().default(24),
  FORTUNE_TEXT_URL: z.url().optional(),
  FORTUNE_TEXT_API_KEY: z.string().min(1).optional(),
  FORTUNE_TEXT_MODEL: z.string().min(1).default("gpt-4o-mini"),
});

/** How the service authenticates to a hosted facilitator. */
export type FacilitatorAuth =
  | { kind: "none" }
  | { kind: "bearer"; token: string }
  /** Coinbase Developer Platform: a JWT per request, signed with the API key. */
  | { kind: "cdp"; keyId: string; secret: string };

/** The hosted rails: a facilitator and networks from config; nothing local is started. */
export type HostedRailsConfig = {
  mode: "hosted";
  facilitatorUrl: string;
  facilitatorAuth: FacilitatorAuth;
  network: `eip155:${number}`;
  /** A JSON-RPC endpoint of the x402 network: settlements the facilitator did not confirm are looked up there. */
  x402RpcUrl: string;
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

const hex = <T extends string>(schema: z.ZodType<string>) => schema.transform((value) => value as T);

/** What hosted mode needs, each variable required. */
const hostedVariables = z.object({
  FORTUNE_FACILITATOR_URL: z.url(),
  FORTUNE_X402_NETWORK: z.string().transform((value) => value as `eip155:${number}`),
  FORTUNE_X402_RPC_URL: z.url(),
  FORTUNE_X402_ASSET: hex<`0x${string}`>(address),
  FORTUNE_X402_ASSET_NAME: z.string(),
  FORTUNE_X402_ASSET_VERSION: z.string(),
  FORTUNE_PAY_TO: hex<`0x${string}`>(address),
  FORTUNE_MPP_RPC_URL: z.url(),
  FORTUNE_MPP_CURRENCY: hex<`0x${string}`>(address),
  FORTUNE_MPP_OPERATOR_KEY: hex<`0x${string}`>(privateKey),
  FORTUNE_MPP_SECRET_KEY: z.string(),
});

function facilitatorAuth(env: Variables): FacilitatorAuth {
  if (env.FORTUNE_CDP_API_KEY_ID && env.FORTUNE_CDP_API_KEY_SECRET) {
    return { kind: "cdp", keyId: env.FORTUNE_CDP_API_KEY_ID, secret: env.FORTUNE_CDP_API_KEY_SECRET };
  }
  if (env.FORTUNE_CDP_API_KEY_ID || env.FORTUNE_CDP_API_KEY_SECRET) {
    throw new ConfigError(["FORTUNE_CDP_API_KEY_ID and FORTUNE_CDP_API_KEY_SECRET: set both, or neither"]);
  }
  return env.FORTUNE_FACILITATOR_TOKEN
    ? { kind: "bearer", token: env.FORTUNE_FACILITATOR_TOKEN }
    : { kind: "none" };
}

function railsConfig(env: Variables): RailsConfig {
  if (env.FORTUNE_RAILS === "local") {
    return { mode: "local", chainPort: env.FORTUNE_CHAIN_PORT, chainId: env.FORTUNE_CHAIN_ID };
  }
  const hosted = hostedVariables.safeParse(env);
  if (!hosted.success) {
    const missing = [...new Set(hosted.error.issues.map((issue) => String(issue.path[0])))];
    throw new ConfigError(missing.map((name) => `${name}: required when FORTUNE_RAILS=hosted`));
  }
  const required = hosted.data;
  return {
    mode: "hosted",
    facilitatorUrl: required.FORTUNE_FACILITATOR_URL,
    facilitatorAuth: facilitatorAuth(env),
    network: required.FORTUNE_X402_NETWORK,
    x402RpcUrl: required.FORTUNE_X402_RPC_URL,
    asset: {
      address: required.FORTUNE_X402_ASSET,
      name: required.FORTUNE_X402_ASSET_NAME,
      version: required.FORTUNE_X402_ASSET_VERSION,
    },
    payTo: required.FORTUNE_PAY_TO,
    mpp: {
      rpcUrl: required.FORTUNE_MPP_RPC_URL,
      chainId: env.FORTUNE_MPP_CHAIN_ID,
      currency: required.FORTUNE_MPP_CURRENCY,
      operatorKey: required.FORTUNE_MPP_OPERATOR_KEY,
      secretKey: required.FORTUNE_MPP_SECRET_KEY,
    },
  };
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

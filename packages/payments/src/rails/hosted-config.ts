/**
 * The settings of hosted payment rails, one set of variables per service (`FORTUNE_…`,
 * `GATEWAY_…`): a facilitator and networks from configuration, nothing local.
 *
 * @module
 */
import { ConfigError, z } from "@app/core";

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte address");
const privateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte private key");

/** How a service authenticates to a hosted facilitator. */
export type FacilitatorAuth =
  | { kind: "none" }
  | { kind: "bearer"; token: string }
  /** Coinbase Developer Platform: a JWT per request, signed with the API key. */
  | { kind: "cdp"; keyId: string; secret: string };

/** Hosted rails: a facilitator and networks from configuration; nothing local is started. */
export type HostedRails = {
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

/** Each variable of hosted rails, without its service's prefix, as it is parsed when present. */
const HOSTED_SETTINGS = {
  FACILITATOR_URL: z.url().optional(),
  FACILITATOR_TOKEN: z.string().min(1).optional(),
  CDP_API_KEY_ID: z.string().min(1).optional(),
  CDP_API_KEY_SECRET: z.string().min(1).optional(),
  X402_RPC_URL: z.url().optional(),
  X402_NETWORK: z
    .string()
    .regex(/^eip155:\d+$/, "must be a CAIP-2 EVM network like eip155:8453")
    .optional(),
  X402_ASSET: address.optional(),
  X402_ASSET_NAME: z.string().min(1).optional(),
  X402_ASSET_VERSION: z.string().min(1).optional(),
  PAY_TO: address.optional(),
  MPP_RPC_URL: z.url().optional(),
  MPP_CHAIN_ID: z.coerce.number().int().positive().default(4217),
  MPP_CURRENCY: address.optional(),
  MPP_OPERATOR_KEY: privateKey.optional(),
  MPP_SECRET_KEY: z.string().min(32, "must be at least 32 characters").optional(),
} as const;

type HostedName = keyof typeof HOSTED_SETTINGS;

/** What hosted mode needs, each variable required, in the order a missing one is named. */
const REQUIRED: HostedName[] = [
  "FACILITATOR_URL",
  "X402_NETWORK",
  "X402_RPC_URL",
  "X402_ASSET",
  "X402_ASSET_NAME",
  "X402_ASSET_VERSION",
  "PAY_TO",
  "MPP_RPC_URL",
  "MPP_CURRENCY",
  "MPP_OPERATOR_KEY",
  "MPP_SECRET_KEY",
];

/**
 * The variables of a service's hosted rails (`<PREFIX>_FACILITATOR_URL`, …), to spread into its
 * one config schema: each optional, required only once its rails are hosted.
 */
export function hostedRailsSettings<P extends string>(prefix: P): Record<`${P}_${HostedName}`, z.ZodType> {
  return Object.fromEntries(
    Object.entries(HOSTED_SETTINGS).map(([name, schema]) => [`${prefix}_${name}`, schema]),
  ) as unknown as Record<`${P}_${HostedName}`, z.ZodType>;
}

/**
 * The hosted rails a service's parsed variables describe; a {@link ConfigError} naming every
 * missing variable (`<PREFIX>_PAY_TO: required when <PREFIX>_RAILS=hosted`), or a CDP key given
 * half.
 */
export function hostedRailsFrom(prefix: string, parsed: Record<string, unknown>): HostedRails {
  const value = (name: HostedName) => parsed[`${prefix}_${name}`] as string | undefined;
  const missing = REQUIRED.filter((name) => value(name) === undefined);
  if (missing.length > 0) {
    throw new ConfigError(missing.map((name) => `${prefix}_${name}: required when ${prefix}_RAILS=hosted`));
  }
  const required = (name: HostedName) => value(name) as string;
  return {
    facilitatorUrl: required("FACILITATOR_URL"),
    facilitatorAuth: facilitatorAuth(prefix, value),
    network: required("X402_NETWORK") as `eip155:${number}`,
    x402RpcUrl: required("X402_RPC_URL"),
    asset: {
      address: required("X402_ASSET") as `0x${string}`,
      name: required("X402_ASSET_NAME"),
      version: required("X402_ASSET_VERSION"),
    },
    payTo: required("PAY_TO") as `0x${string}`,
    mpp: {
      rpcUrl: required("MPP_RPC_URL"),
      chainId: Number(parsed[`${prefix}_MPP_CHAIN_ID`] ?? 4217),
      currency: required("MPP_CURRENCY") as `0x${string}`,
      operatorKey: required("MPP_OPERATOR_KEY") as `0x${string}`,
      secretKey: required("MPP_SECRET_KEY"),
    },
  };
}

function facilitatorAuth(prefix: string, value: (name: HostedName) => string | undefined): FacilitatorAuth {
  const keyId = value("CDP_API_KEY_ID");
  const secret = value("CDP_API_KEY_SECRET");
  if (keyId && secret) return { kind: "cdp", keyId, secret };
  if (keyId || secret) {
    throw new ConfigError([
      `${prefix}_CDP_API_KEY_ID and ${prefix}_CDP_API_KEY_SECRET: set both, or neither`,
    ]);
  }
  const token = value("FACILITATOR_TOKEN");
  return token ? { kind: "bearer", token } : { kind: "none" };
}

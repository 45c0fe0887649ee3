import { join } from "node:path";
import { ConfigError, type Env, loadConfig, settings, z } from "@app/core";
import { type BaseServiceConfig, baseSettings, toBaseConfig } from "@app/runtime";

/** An http(s) base URL without credentials, query or fragment; kept without a trailing slash. */
const baseUrl = () =>
  z
    .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
    .refine((text) => {
      const url = new URL(text);
      return !url.username && !url.password && !url.search && !url.hash;
    }, "must not carry credentials, a query or a fragment")
    .transform((text) => text.replace(/\/+$/, ""))
    .optional();

const positiveInt = (fallback: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(fallback);

const variables = z.object({
  ...baseSettings("PUBLISHER", 3002),
  PUBLISHER_PUBLIC_URL: baseUrl(),
  PUBLISHER_RATE_LIMIT: positiveInt(120, 1_000_000),
  PUBLISHER_RATE_WINDOW_SECONDS: positiveInt(60, 86_400),
  PUBLISHER_PUBLISH_TIMEOUT_MS: positiveInt(25_000, 300_000),
  PUBLISHER_PRESIGN_EXPIRES_SECONDS: positiveInt(900, 604_800),
  PUBLISHER_STORAGE: z.enum(["local", "s3"]).default("local"),
  PUBLISHER_STORAGE_DIR: z.string().min(1).optional(),
  PUBLISHER_STORAGE_SECRET: z.string().min(32, "must have at least 32 characters").optional(),
  PUBLISHER_S3_ENDPOINT: baseUrl(),
  PUBLISHER_S3_REGION: z.string().min(1).default("us-east-1"),
  PUBLISHER_S3_BUCKET: z.string().min(3).max(63).optional(),
  PUBLISHER_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  PUBLISHER_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  PUBLISHER_S3_FORCE_PATH_STYLE: settings.boolean(true),
  PUBLISHER_S3_PUBLIC_URL: baseUrl(),
});

/** Where media lives: local disk behind the service's own SigV4 endpoint, or an S3-compatible store. */
export type StorageConfig =
  | {
      kind: "local";
      dir: string;
      /** Signs presigned PUT URLs; random per process when unset (URLs then die with the process). */
      secret?: string;
    }
  | {
      kind: "s3";
      endpoint?: string;
      region: string;
      bucket: string;
      accessKeyId: string;
      secretAccessKey: string;
      forcePathStyle: boolean;
      /** Public base of the bucket's objects; unset serves them through `GET /media/…` of this service. */
      publicUrl?: string;
    };

export type PublisherConfig = BaseServiceConfig & {
  /** The base URL callers and platforms reach this service at; unset: where it listens. */
  publicUrl?: string;
  /** Requests per API key per window, counted in the database (every instance shares them). */
  rateLimit: { limit: number; windowSeconds: number };
  /** How long publish-now waits for the platforms before answering. */
  publishTimeoutMs: number;
  /** Lifetime of a presigned upload URL, in seconds. */
  presignExpiresSeconds: number;
  storage: StorageConfig;
};

/** The spec's request limit, for code and tests that need it without reading the environment. */
export const DEFAULT_RATE_LIMIT = { limit: 120, windowSeconds: 60 } as const;

type Parsed = z.infer<typeof variables>;

function storageConfig(parsed: Parsed): StorageConfig {
  if (parsed.PUBLISHER_STORAGE === "local") {
    return {
      kind: "local",
      dir: parsed.PUBLISHER_STORAGE_DIR ?? join(parsed.DATA_DIR, "publisher", "media"),
      secret: parsed.PUBLISHER_STORAGE_SECRET,
    };
  }
  const missing = (
    ["PUBLISHER_S3_BUCKET", "PUBLISHER_S3_ACCESS_KEY_ID", "PUBLISHER_S3_SECRET_ACCESS_KEY"] as const
  ).filter((name) => parsed[name] === undefined);
  if (missing.length > 0) {
    throw new ConfigError(missing.map((name) => `${name}: required when PUBLISHER_STORAGE=s3`));
  }
  return {
    kind: "s3",
    endpoint: parsed.PUBLISHER_S3_ENDPOINT,
    region: parsed.PUBLISHER_S3_REGION,
    bucket: parsed.PUBLISHER_S3_BUCKET as string,
    accessKeyId: parsed.PUBLISHER_S3_ACCESS_KEY_ID as string,
    secretAccessKey: parsed.PUBLISHER_S3_SECRET_ACCESS_KEY as string,
    forcePathStyle: parsed.PUBLISHER_S3_FORCE_PATH_STYLE,
    publicUrl: parsed.PUBLISHER_S3_PUBLIC_URL,
  };
}

/** Reads the publisher service's settings from the environment, once, failing fast on bad values. */
export function loadPublisherConfig(env: Env): PublisherConfig {
  const parsed = loadConfig(variables, env, { prefixes: ["PUBLISHER_"] });
  return {
    ...toBaseConfig(parsed, parsed.PUBLISHER_PORT),
    publicUrl: parsed.PUBLISHER_PUBLIC_URL,
    rateLimit: { limit: parsed.PUBLISHER_RATE_LIMIT, windowSeconds: parsed.PUBLISHER_RATE_WINDOW_SECONDS },
    publishTimeoutMs: parsed.PUBLISHER_PUBLISH_TIMEOUT_MS,
    presignExpiresSeconds: parsed.PUBLISHER_PRESIGN_EXPIRES_SECONDS,
    storage: storageConfig(parsed),
  };
}

import { join } from "node:path";
import { ConfigError, type Env, loadConfig, settings, z } from "@app/core";
import { type BaseServiceConfig, baseSettings, toBaseConfig } from "@app/runtime";
import type { PlatformSettings } from "./platforms/index.ts";
import { DEFAULT_ACCOUNT_SHARE, DEFAULT_RESERVED_SLOTS } from "./publishing/fair-share.ts";
import { defaultTuning } from "./publishing/run-context.ts";
import { WORKER_DEFAULTS, type WorkerOptions } from "./publishing/worker-pool.ts";
import { WEBHOOK_WORKER_DEFAULTS } from "./webhooks/delivery-worker.ts";

/** The spec's request limit, for code and tests that need it without reading the environment. */
export const DEFAULT_RATE_LIMIT = { limit: 120, windowSeconds: 60 } as const;
/** How long publish-now waits for the platforms by default. */
export const DEFAULT_PUBLISH_TIMEOUT_MS = 25_000;
/** How long a presigned upload URL lives by default, in seconds. */
export const DEFAULT_PRESIGN_EXPIRES_SECONDS = 900;

const { positiveInt } = settings;
const trimmed = (text: string) => text.replace(/\/+$/, "");
/** An http(s) base URL without credentials, query or fragment; kept without a trailing slash. */
const baseUrl = () => settings.httpBaseUrl().transform(trimmed).optional();
/** A platform's base URL, the real platform's by default; kept without a trailing slash. */
const platformUrl = (fallback: string) => settings.httpUrl().default(fallback).transform(trimmed);
const ms = (fallback: number) => z.coerce.number().int().min(10).max(86_400_000).default(fallback);
const list = () =>
  z
    .string()
    .default("")
    .transform((text) =>
      text
        .split(",")
        .map((item) => trimmed(item.trim()))
        .filter(Boolean),
    );
/** A comma-separated list of http(s) URLs, kept as their origins. */
const originList = () => list().pipe(z.array(settings.httpUrl().transform((text) => new URL(text).origin)));

/**
 * Every publisher variable, the API's and its workers' (the API process runs workers too, and
 * the worker process and the CLI read the same settings). Platform base URLs default to the real
 * platforms; `PUBLISHER_PLATFORM_URL` points all of them at one place (the sandbox).
 */
const variables = z.object({
  ...baseSettings("PUBLISHER", 3002),
  PUBLISHER_PUBLIC_URL: baseUrl(),
  PUBLISHER_RATE_LIMIT: positiveInt(DEFAULT_RATE_LIMIT.limit, 1_000_000),
  PUBLISHER_RATE_WINDOW_SECONDS: positiveInt(DEFAULT_RATE_LIMIT.windowSeconds, 86_400),
  PUBLISHER_PUBLISH_TIMEOUT_MS: positiveInt(DEFAULT_PUBLISH_TIMEOUT_MS, 300_000),
  PUBLISHER_PRESIGN_EXPIRES_SECONDS: positiveInt(DEFAULT_PRESIGN_EXPIRES_SECONDS, 604_800),
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
  PUBLISHER_TOKEN_SECRET: z.string().min(32, "must have at least 32 characters"),
  PUBLISHER_PLATFORM_URL: settings.httpUrl().transform(trimmed).optional(),
  PUBLISHER_GOOGLE_CLIENT_ID: z.string().default(""),
  PUBLISHER_GOOGLE_CLIENT_SECRET: z.string().default(""),
  PUBLISHER_GOOGLE_AUTHORIZE_URL: platformUrl("https://accounts.google.com"),
  PUBLISHER_GOOGLE_TOKEN_URL: platformUrl("https://oauth2.googleapis.com"),
  PUBLISHER_YOUTUBE_API_URL: platformUrl("https://www.googleapis.com"),
  PUBLISHER_TIKTOK_CLIENT_KEY: z.string().default(""),
  PUBLISHER_TIKTOK_CLIENT_SECRET: z.string().default(""),
  PUBLISHER_TIKTOK_AUTHORIZE_URL: platformUrl("https://www.tiktok.com"),
  PUBLISHER_TIKTOK_API_URL: platformUrl("https://open.tiktokapis.com"),
  PUBLISHER_BLUESKY_SERVICE: platformUrl("https://bsky.social"),
  PUBLISHER_BLUESKY_PLC_URL: platformUrl("https://plc.directory"),
  PUBLISHER_BLUESKY_TRUSTED_PDS_ORIGINS: originList(),
  PUBLISHER_MEDIA_TRUSTED_ORIGINS: list(),
  PUBLISHER_WORKERS: settings.boolean(true),
  PUBLISHER_WORKER_ID: z.string().min(1).max(200).optional(),
  PUBLISHER_WORKER_CONCURRENCY: positiveInt(WORKER_DEFAULTS.concurrency, 256),
  PUBLISHER_WORKER_ACCOUNT_SHARE: z.coerce.number().gt(0).max(1).default(DEFAULT_ACCOUNT_SHARE),
  PUBLISHER_WORKER_RESERVED_SLOTS: z.coerce.number().int().min(0).max(256).default(DEFAULT_RESERVED_SLOTS),
  PUBLISHER_WORKER_POLL_MS: ms(WORKER_DEFAULTS.pollIntervalMs),
  PUBLISHER_WORKER_LEASE_MS: ms(WORKER_DEFAULTS.leaseMs),
  PUBLISHER_SWEEP_INTERVAL_MS: ms(WORKER_DEFAULTS.sweepIntervalMs),
  PUBLISHER_TIKTOK_PROCESSING_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(7 * 86_400_000)
    .default(defaultTuning().tiktokProcessingTimeoutMs),
  PUBLISHER_WEBHOOK_ALLOW_PRIVATE: settings.boolean(false),
  PUBLISHER_WEBHOOK_CONCURRENCY: positiveInt(WEBHOOK_WORKER_DEFAULTS.concurrency, 256),
  PUBLISHER_WEBHOOK_POLL_MS: ms(WEBHOOK_WORKER_DEFAULTS.pollIntervalMs),
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

/** What publishing (publish-now and the workers) is configured with. */
export type PublishingSettings = {
  tokenSecret: string;
  platforms: PlatformSettings;
  /** Where handles are resolved (the entry service), and the default PDS. */
  blueskyService: string;
  /** Where did:plc documents are read, and the PDS origins trusted without the public-address check. */
  blueskyIdentity: { plcUrl: string; trustedOrigins: string[] };
  trustedMediaOrigins: string[];
  /** Whether the API process runs workers too (the worker process always does). */
  runWorkers: boolean;
  workers: Required<Omit<WorkerOptions, "workerId">> & { workerId?: string };
};

/** How webhooks are sent (src/webhooks/); their workers run wherever the publishing workers do. */
export type WebhookSettings = {
  /** Whether loopback and private addresses may receive webhooks (never link-local / metadata). */
  allowPrivate: boolean;
  /** Attempts in flight at once per process. */
  concurrency: number;
  /** How long a worker waits before looking again when nothing was due. */
  pollIntervalMs: number;
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
  publishing: PublishingSettings;
  webhooks: WebhookSettings;
};

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

function publishingSettings(parsed: Parsed): PublishingSettings {
  const one = parsed.PUBLISHER_PLATFORM_URL;
  return {
    tokenSecret: parsed.PUBLISHER_TOKEN_SECRET,
    platforms: {
      google: {
        authorizeBase: one ?? parsed.PUBLISHER_GOOGLE_AUTHORIZE_URL,
        tokenBase: one ?? parsed.PUBLISHER_GOOGLE_TOKEN_URL,
        apiBase: one ?? parsed.PUBLISHER_YOUTUBE_API_URL,
        clientId: parsed.PUBLISHER_GOOGLE_CLIENT_ID,
        clientSecret: parsed.PUBLISHER_GOOGLE_CLIENT_SECRET,
      },
      tiktok: {
        authorizeBase: one ?? parsed.PUBLISHER_TIKTOK_AUTHORIZE_URL,
        apiBase: one ?? parsed.PUBLISHER_TIKTOK_API_URL,
        clientKey: parsed.PUBLISHER_TIKTOK_CLIENT_KEY,
        clientSecret: parsed.PUBLISHER_TIKTOK_CLIENT_SECRET,
      },
    },
    blueskyService: one ?? parsed.PUBLISHER_BLUESKY_SERVICE,
    blueskyIdentity: {
      plcUrl: parsed.PUBLISHER_BLUESKY_PLC_URL,
      trustedOrigins: [
        ...(one ? [new URL(one).origin] : []),
        ...parsed.PUBLISHER_BLUESKY_TRUSTED_PDS_ORIGINS,
      ],
    },
    trustedMediaOrigins: parsed.PUBLISHER_MEDIA_TRUSTED_ORIGINS,
    runWorkers: parsed.PUBLISHER_WORKERS,
    workers: {
      concurrency: parsed.PUBLISHER_WORKER_CONCURRENCY,
      accountShare: parsed.PUBLISHER_WORKER_ACCOUNT_SHARE,
      reservedSlots: parsed.PUBLISHER_WORKER_RESERVED_SLOTS,
      pollIntervalMs: parsed.PUBLISHER_WORKER_POLL_MS,
      leaseMs: parsed.PUBLISHER_WORKER_LEASE_MS,
      sweepIntervalMs: parsed.PUBLISHER_SWEEP_INTERVAL_MS,
      tiktokProcessingTimeoutMs: parsed.PUBLISHER_TIKTOK_PROCESSING_TIMEOUT_MS,
      workerId: parsed.PUBLISHER_WORKER_ID,
    },
  };
}

const PREFIXES = { prefixes: ["PUBLISHER_"] };

/**
 * Reads the publisher's settings (the API's and its workers') from the environment, once, failing
 * fast on bad values. The service and the worker process both start from it.
 */
export function loadPublisherConfig(env: Env): PublisherConfig {
  const parsed = loadConfig(variables, env, PREFIXES);
  return {
    ...toBaseConfig(parsed, parsed.PUBLISHER_PORT),
    publicUrl: parsed.PUBLISHER_PUBLIC_URL,
    rateLimit: { limit: parsed.PUBLISHER_RATE_LIMIT, windowSeconds: parsed.PUBLISHER_RATE_WINDOW_SECONDS },
    publishTimeoutMs: parsed.PUBLISHER_PUBLISH_TIMEOUT_MS,
    presignExpiresSeconds: parsed.PUBLISHER_PRESIGN_EXPIRES_SECONDS,
    storage: storageConfig(parsed),
    publishing: publishingSettings(parsed),
    webhooks: {
      allowPrivate: parsed.PUBLISHER_WEBHOOK_ALLOW_PRIVATE,
      concurrency: parsed.PUBLISHER_WEBHOOK_CONCURRENCY,
      pollIntervalMs: parsed.PUBLISHER_WEBHOOK_POLL_MS,
    },
  };
}

/**
 * The operator CLI's settings (where the database is), checked against the same variables; the
 * token secret may be unset, as nothing the CLI does seals or opens a platform token.
 */
export function loadPublisherCliConfig(env: Env): BaseServiceConfig {
  const parsed = loadConfig(variables.partial({ PUBLISHER_TOKEN_SECRET: true }), env, PREFIXES);
  return toBaseConfig(parsed, parsed.PUBLISHER_PORT);
}

/** Where callers and platforms reach the service: its public URL, else where it listens. */
export function publicBaseOf(config: BaseServiceConfig & { publicUrl?: string }): string {
  return config.publicUrl ?? `http://${config.host}:${config.port}`;
}

import { settings, z } from "@app/core";
import type { PlatformSettings } from "../platforms/index.ts";
import type { WorkerOptions } from "./worker-pool.ts";

const url = (fallback: string) =>
  z
    .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
    .default(fallback)
    .transform((text) => text.replace(/\/+$/, ""));
const optionalUrl = () =>
  z
    .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
    .transform((text) => text.replace(/\/+$/, ""))
    .optional();
const ms = (fallback: number) => z.coerce.number().int().min(10).max(86_400_000).default(fallback);
const list = () =>
  z
    .string()
    .default("")
    .transform((text) =>
      text
        .split(",")
        .map((item) => item.trim().replace(/\/+$/, ""))
        .filter(Boolean),
    );
/** A comma-separated list of http(s) URLs, kept as their origins. */
const originList = () =>
  list().pipe(
    z.array(
      z
        .url({ protocol: /^https?$/, error: "must be http:// or https:// URLs" })
        .transform((text) => new URL(text).origin),
    ),
  );

/**
 * The publishing half's variables, for the service's config schema (spread them into it). Base
 * URLs default to the real platforms; `PUBLISHER_PLATFORM_URL` points all of them at one place
 * (the sandbox).
 */
export const publishingVariables = {
  PUBLISHER_TOKEN_SECRET: z.string().min(32, "must have at least 32 characters"),
  PUBLISHER_PLATFORM_URL: optionalUrl(),
  PUBLISHER_GOOGLE_CLIENT_ID: z.string().default(""),
  PUBLISHER_GOOGLE_CLIENT_SECRET: z.string().default(""),
  PUBLISHER_GOOGLE_AUTHORIZE_URL: url("https://accounts.google.com"),
  PUBLISHER_GOOGLE_TOKEN_URL: url("https://oauth2.googleapis.com"),
  PUBLISHER_YOUTUBE_API_URL: url("https://www.googleapis.com"),
  PUBLISHER_TIKTOK_CLIENT_KEY: z.string().default(""),
  PUBLISHER_TIKTOK_CLIENT_SECRET: z.string().default(""),
  PUBLISHER_TIKTOK_AUTHORIZE_URL: url("https://www.tiktok.com"),
  PUBLISHER_TIKTOK_API_URL: url("https://open.tiktokapis.com"),
  PUBLISHER_BLUESKY_SERVICE: url("https://bsky.social"),
  PUBLISHER_BLUESKY_PLC_URL: url("https://plc.directory"),
  PUBLISHER_BLUESKY_TRUSTED_PDS_ORIGINS: originList(),
  PUBLISHER_MEDIA_TRUSTED_ORIGINS: list(),
  PUBLISHER_WORKERS: settings.boolean(true),
  PUBLISHER_WORKER_ID: z.string().min(1).max(200).optional(),
  // 16: a Bluesky text post is mostly waiting (the platform, the handle save's disk flush), and
  // group commit flushes the handles of every target in flight at once. Two processes at 4 kept
  // up with 167 targets/s only without anything else on the machine (bench/publisher.ts).
  PUBLISHER_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  // An account holds at most this share of a process's slots while other accounts have due
  // targets; one that runs a target never takes the reserved slots, which are kept for accounts
  // with nothing running (fair-share.ts).
  PUBLISHER_WORKER_ACCOUNT_SHARE: z.coerce.number().gt(0).max(1).default(0.25),
  PUBLISHER_WORKER_RESERVED_SLOTS: z.coerce.number().int().min(0).max(256).default(1),
  PUBLISHER_WORKER_POLL_MS: ms(1_000),
  PUBLISHER_WORKER_LEASE_MS: ms(60_000),
  PUBLISHER_SWEEP_INTERVAL_MS: ms(15_000),
  PUBLISHER_TIKTOK_PROCESSING_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(7 * 86_400_000)
    .default(3_600_000),
};

const schema = z.object(publishingVariables);
type Parsed = z.infer<typeof schema>;

/** What publishing is configured with. */
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

/** Maps the parsed variables to {@link PublishingSettings}. */
export function toPublishingSettings(parsed: Parsed): PublishingSettings {
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

/** The variables' schema, for a process that reads only these (the worker, until config.ts has them). */
export const publishingSchema = schema;

import type { Clock, Logger, ServiceApp } from "@app/core";
import type { Database } from "@app/db";
import type { Publishing } from "../contracts/publishing.ts";
import type { MediaStorage } from "../contracts/storage.ts";
import type { RateLimiter } from "../store/rate-limits.ts";

/**
 * The privacy levels a TikTok creator may use now (`creator_info`), supplied by publishing;
 * undefined when it cannot tell.
 */
export type CreatorPrivacyOptions = (connectionId: string) => Promise<readonly string[] | undefined>;

/** What every route is built from. */
export type RouteDeps = {
  db: Database;
  clock: Clock;
  logger: Logger;
  storage: MediaStorage;
  publishing: Publishing;
  limiter: RateLimiter;
  publishTimeoutMs: number;
  presignExpiresSeconds: number;
  creatorPrivacyOptions?: CreatorPrivacyOptions;
};

export type PublisherApp = ServiceApp;

import type { Clock, Logger, ServiceApp } from "@app/core";
import type { Database } from "@app/db";
import type { IdempotencyStore, RateLimiter } from "@app/edge";
import type { Publishing } from "../contracts/publishing.ts";
import type { MediaStorage } from "../contracts/storage.ts";
import type { MediaPreflight } from "../media/preflight/media-preflight.ts";

/** What a TikTok creator may post now (`creator_info`): privacy levels and the longest video. */
export type TikTokCreatorFacts = { privacyLevelOptions: readonly string[]; maxVideoPostDurationSec?: number };

/**
 * A TikTok connection's creator facts, asked of TikTok through publishing; undefined when it
 * cannot tell. A connection found dead (its grant revoked) throws a `reconnect` PlatformError,
 * the connection already marked `needs_reconnect`.
 */
export type TikTokCreatorLookup = (connectionId: string) => Promise<TikTokCreatorFacts | undefined>;

/** What every route is built from. */
export type RouteDeps = {
  db: Database;
  clock: Clock;
  logger: Logger;
  storage: MediaStorage;
  publishing: Publishing;
  /** Requests per key, counted when the key is checked (subject: the key id). */
  limiter: RateLimiter;
  publishTimeoutMs: number;
  presignExpiresSeconds: number;
  tiktokCreator?: TikTokCreatorLookup;
  /** Checks a post's media against its targets and makes what can be fixed fit (`src/media/preflight`). */
  mediaPreflight: MediaPreflight;
  /** The creates' `Idempotency-Key`s, per account (`answerIdempotently`). */
  idempotency: IdempotencyStore;
};

export type PublisherApp = ServiceApp;

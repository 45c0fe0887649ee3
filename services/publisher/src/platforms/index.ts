import { type Clock, systemClock } from "@app/core";
import { type BlueskyAdapter, createBlueskyClient } from "./bluesky/bluesky-client.ts";
import { createTikTokClient, type TikTokAdapter } from "./tiktok/tiktok-client.ts";
import { createTikTokOAuthClient, TIKTOK_SCOPES } from "./tiktok/tiktok-oauth.ts";
import {
  createGoogleOAuthClient,
  YOUTUBE_FORCE_SSL_SCOPE,
  YOUTUBE_READONLY_SCOPE,
  YOUTUBE_UPLOAD_SCOPE,
} from "./youtube/google-oauth.ts";
import { createYouTubeClient, type YouTubeAdapter } from "./youtube/youtube-client.ts";

export type { BlueskyAdapter } from "./bluesky/bluesky-client.ts";
export { PlatformError } from "./errors.ts";
export type { TikTokAdapter } from "./tiktok/tiktok-client.ts";
export type { OAuthClient, OAuthTokens } from "./types.ts";
export type { YouTubeAdapter } from "./youtube/youtube-client.ts";

/** One adapter per platform; tests may swap any of them. */
export type Adapters = { youtube: YouTubeAdapter; tiktok: TikTokAdapter; bluesky: BlueskyAdapter };

/**
 * Where the platforms are and the apps registered with them. The real values: Google
 * `https://accounts.google.com`, `https://oauth2.googleapis.com`, `https://www.googleapis.com`;
 * TikTok `https://www.tiktok.com`, `https://open.tiktokapis.com`. The sandbox serves all of them
 * at its one base URL.
 */
export type PlatformSettings = {
  google: {
    authorizeBase: string;
    tokenBase: string;
    apiBase: string;
    clientId: string;
    clientSecret: string;
  };
  tiktok: { authorizeBase: string; apiBase: string; clientKey: string; clientSecret: string };
  /** Time limit of an API call, and of one chunk or blob upload. */
  timeoutMs?: number;
  uploadTimeoutMs?: number;
};

/** The real adapters, speaking each platform's HTTP API at the configured base URLs. */
export function createAdapters(settings: PlatformSettings, clock: Clock = systemClock): Adapters {
  const timeoutMs = settings.timeoutMs ?? 30_000;
  const chunkTimeoutMs = settings.uploadTimeoutMs ?? 300_000;
  const googleOAuth = createGoogleOAuthClient(
    {
      ...settings.google,
      scopes: [YOUTUBE_UPLOAD_SCOPE, YOUTUBE_READONLY_SCOPE, YOUTUBE_FORCE_SSL_SCOPE],
      timeoutMs,
    },
    clock,
  );
  const tiktokOAuth = createTikTokOAuthClient(
    { ...settings.tiktok, scopes: TIKTOK_SCOPES, timeoutMs },
    clock,
  );
  return {
    youtube: createYouTubeClient(
      { apiBase: settings.google.apiBase, timeoutMs, chunkTimeoutMs },
      googleOAuth,
      clock,
    ),
    tiktok: createTikTokClient(
      { apiBase: settings.tiktok.apiBase, timeoutMs, chunkTimeoutMs },
      tiktokOAuth,
      clock,
    ),
    bluesky: createBlueskyClient({ timeoutMs, uploadTimeoutMs: chunkTimeoutMs }, clock),
  };
}

import type { Readable } from "node:stream";
import type { Clock } from "@app/core";
import { type FailureKind, kindOfStatus, PlatformError, parseRetryAfter } from "../errors.ts";
import { objectField, platformFetch, readJson, stringField } from "../http.ts";
import type { OAuthClient } from "../types.ts";

/** What a video is published with. */
export type YouTubeVideo = {
  title: string;
  description: string;
  privacy: "private" | "unlisted" | "public";
  size: number;
  contentType: string;
};

/** Where a resumable upload session stands. */
export type UploadProgress =
  | { kind: "incomplete"; received: number }
  | { kind: "complete"; videoId: string }
  | { kind: "expired" };

/** The YouTube Data API calls publishing makes (interface, so tests can swap it). */
export interface YouTubeAdapter {
  oauth: OAuthClient;
  /** The signed-in user's channel, or null when the Google account has none. */
  channel(accessToken: string): Promise<{ id: string; title: string } | null>;
  /** Starts a resumable upload (`videos.insert`) and returns the session URI. Nothing is created yet. */
  startUpload(accessToken: string, video: YouTubeVideo): Promise<string>;
  /** PUTs bytes `first…last` of `total`, streamed from `body`; the last byte creates the video. */
  uploadChunk(
    sessionUri: string,
    chunk: { first: number; last: number; total: number; body: Readable },
  ): Promise<UploadProgress>;
  /** Asks the session how many bytes it holds (`Content-Range: bytes *\/total`). */
  queryUpload(sessionUri: string, total: number): Promise<UploadProgress>;
  /**
   * Deletes a video (`videos.delete`, 204): `deleted`, or `not_found` when YouTube has no video
   * with this id (404 `videoNotFound`: deleted already). Needs the `youtube`, `youtube.force-ssl`
   * or `youtubepartner` scope (else 403 `insufficientPermissions`); another channel's video is 403
   * `forbidden`. Both throw a permanent PlatformError; a refused token an `unauthorized` one.
   */
  deleteVideo(accessToken: string, videoId: string): Promise<"deleted" | "not_found">;
}

export type YouTubeConfig = {
  /** `https://www.googleapis.com` (the sandbox: its base URL). */
  apiBase: string;
  timeoutMs: number;
  /** Time limit of one chunk PUT. */
  chunkTimeoutMs: number;
};

const PERMANENT_REASONS = new Set([
  "quotaExceeded",
  "uploadLimitExceeded",
  "youtubeSignupRequired",
  "forbidden",
]);
const TRANSIENT_REASONS = new Set(["rateLimitExceeded", "userRateLimitExceeded", "backendError"]);

/** Turns Google's `{error: {code, message, errors: [{reason}]}}` into a classified PlatformError. */
async function googleError(res: Response, clock: Clock): Promise<PlatformError> {
  const error = objectField(await readJson(res), "error");
  const first = Array.isArray(error?.errors)
    ? (error.errors[0] as Record<string, unknown> | undefined)
    : undefined;
  const reason = stringField(first, "reason") ?? stringField(error, "status") ?? `http_${res.status}`;
  let kind: FailureKind = kindOfStatus(res.status);
  if (TRANSIENT_REASONS.has(reason)) kind = "transient";
  if (PERMANENT_REASONS.has(reason)) kind = "permanent";
  return new PlatformError("youtube", kind, reason, stringField(error, "message") ?? `HTTP ${res.status}`, {
    status: res.status,
    retryAfterMs: parseRetryAfter(res.headers.get("retry-after"), clock.now()),
  });
}

/** The bytes a 308 says the session holds (`Range: bytes=0-N` → N+1; none → 0). */
export function receivedBytes(range: string | null): number {
  const match = range ? /bytes=0-(\d+)/.exec(range) : null;
  return match ? Number(match[1]) + 1 : 0;
}

/** The real YouTube Data API v3 client: resumable uploads of `videos.insert`. */
export function createYouTubeClient(config: YouTubeConfig, oauth: OAuthClient, clock: Clock): YouTubeAdapter {
  async function progress(res: Response): Promise<UploadProgress> {
    if (res.status === 308) return { kind: "incomplete", received: receivedBytes(res.headers.get("range")) };
    if (res.status === 404 || res.status === 410) return { kind: "expired" };
    if (res.status === 200 || res.status === 201) {
      const id = stringField(await readJson(res), "id");
      if (id) return { kind: "complete", videoId: id };
      throw new PlatformError(
        "youtube",
        "transient",
        "bad_response",
        "The upload answered without a video id.",
      );
    }
    throw await googleError(res, clock);
  }

  return {
    oauth,
    async channel(accessToken) {
      const res = await platformFetch("youtube", {
        method: "GET",
        url: `${config.apiBase}/youtube/v3/channels?part=snippet&mine=true`,
        headers: { authorization: `Bearer ${accessToken}` },
        timeoutMs: config.timeoutMs,
      });
      if (!res.ok) throw await googleError(res, clock);
      const items = (await readJson(res)).items;
      const item = Array.isArray(items) ? (items[0] as Record<string, unknown> | undefined) : undefined;
      const id = stringField(item, "id");
      if (!id) return null;
      return { id, title: stringField(objectField(item, "snippet"), "title") ?? id };
    },
    async startUpload(accessToken, video) {
      const res = await platformFetch("youtube", {
        method: "POST",
        url: `${config.apiBase}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`,
        headers: {
          authorization: `Bearer ${accessToken}`,
          "content-type": "application/json; charset=UTF-8",
          "x-upload-content-length": String(video.size),
          "x-upload-content-type": video.contentType,
        },
        body: JSON.stringify({
          snippet: { title: video.title, description: video.description },
          status: { privacyStatus: video.privacy, selfDeclaredMadeForKids: false },
        }),
        timeoutMs: config.timeoutMs,
      });
      if (!res.ok) throw await googleError(res, clock);
      await res.body?.cancel();
      const location = res.headers.get("location");
      if (!location)
        throw new PlatformError("youtube", "transient", "bad_response", "No session URI (Location).");
      return location;
    },
    async uploadChunk(sessionUri, { first, last, total, body }) {
      const res = await platformFetch("youtube", {
        method: "PUT",
        url: sessionUri,
        headers: {
          "content-length": String(last - first + 1),
          "content-range": `bytes ${first}-${last}/${total}`,
        },
        body,
        timeoutMs: config.chunkTimeoutMs,
      });
      return progress(res);
    },
    async deleteVideo(accessToken, videoId) {
      const res = await platformFetch("youtube", {
        method: "DELETE",
        url: `${config.apiBase}/youtube/v3/videos?${new URLSearchParams({ id: videoId })}`,
        headers: { authorization: `Bearer ${accessToken}` },
        timeoutMs: config.timeoutMs,
      });
      if (res.status === 204 || res.status === 200) {
        await res.body?.cancel();
        return "deleted";
      }
      const error = await googleError(res, clock);
      if (error.reason === "videoNotFound") return "not_found";
      throw error;
    },
    async queryUpload(sessionUri, total) {
      const res = await platformFetch("youtube", {
        method: "PUT",
        url: sessionUri,
        headers: { "content-range": `bytes */${total}`, "content-length": "0" },
        timeoutMs: config.timeoutMs,
      });
      return progress(res);
    },
  };
}

import type { Readable } from "node:stream";
import type { Clock } from "@app/core";
import { type FailureKind, kindOfStatus, PlatformError, parseRetryAfter } from "../errors.ts";
import { objectField, platformFetch, readJson, stringField } from "../http.ts";
import type { OAuthClient } from "../types.ts";
import type { ChunkPlan } from "./chunk-plan.ts";

export type TikTokPostMode = "DIRECT_POST" | "MEDIA_UPLOAD";

/** `creator_info/query`: what the creator may post right now. */
export type CreatorInfo = {
  username: string;
  privacyLevelOptions: string[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  /** The longest video this creator may post, in seconds (`max_video_post_duration_sec`), when told. */
  maxVideoPostDurationSec?: number;
};

/** `post_info` of a direct post (TikTok's field names). */
export type TikTokPostInfo = Record<string, string | number | boolean>;

/** Where a publish stands (`status/fetch`). */
export type PublishStatus = {
  status: "PROCESSING_UPLOAD" | "PROCESSING_DOWNLOAD" | "SEND_TO_USER_INBOX" | "PUBLISH_COMPLETE" | "FAILED";
  failReason?: string;
  publicPostId?: string;
  uploadedBytes?: number;
};

/** The TikTok Content Posting API calls publishing makes (interface, so tests can swap it). */
export interface TikTokAdapter {
  oauth: OAuthClient;
  /** The user's `open_id` and display name: the fields `user.info.basic` covers, the one user scope asked for. */
  userInfo(accessToken: string): Promise<{ openId: string; displayName: string }>;
  creatorInfo(accessToken: string): Promise<CreatorInfo>;
  /** `video/init` (DIRECT_POST, with post_info) or `inbox/video/init` (MEDIA_UPLOAD) for a FILE_UPLOAD. */
  initVideo(
    accessToken: string,
    input: { mode: TikTokPostMode; postInfo: TikTokPostInfo; plan: ChunkPlan },
  ): Promise<{ publishId: string; uploadUrl: string }>;
  /** `content/init` for a photo post, pulled by TikTok from the given (verified) URLs. */
  initPhotos(
    accessToken: string,
    input: { mode: TikTokPostMode; postInfo: TikTokPostInfo; photoUrls: string[] },
  ): Promise<{ publishId: string }>;
  /** PUTs one chunk to the `upload_url`. */
  uploadChunk(
    uploadUrl: string,
    chunk: { first: number; last: number; total: number; contentType: string; body: Readable },
  ): Promise<void>;
  fetchStatus(accessToken: string, publishId: string): Promise<PublishStatus>;
}

export type TikTokConfig = { apiBase: string; timeoutMs: number; chunkTimeoutMs: number };

const TRANSIENT = new Set([
  "rate_limit_exceeded",
  "internal_error",
  "spam_risk_too_many_pending_share_retry",
]);
const RECONNECT = new Set(["scope_not_authorized", "access_token_revoked"]);

/**
 * Classifies TikTok's `{data, error: {code, message, log_id}}` envelope. It is a definite refusal
 * (`refused`) when TikTok's own error code came back or the status is 4xx; a bare 5xx is not.
 */
function envelopeError(res: Response, body: Record<string, unknown>, clock: Clock): PlatformError {
  const error = objectField(body, "error");
  const ownCode = stringField(error, "code");
  const code = ownCode ?? `http_${res.status}`;
  let kind: FailureKind = kindOfStatus(res.status);
  if (TRANSIENT.has(code)) kind = "transient";
  if (code === "access_token_invalid") kind = "unauthorized";
  if (RECONNECT.has(code)) kind = "reconnect";
  return new PlatformError("tiktok", kind, code, stringField(error, "message") || `HTTP ${res.status}`, {
    status: res.status,
    retryAfterMs: parseRetryAfter(res.headers.get("retry-after"), clock.now()),
    refused: ownCode !== undefined || (res.status >= 400 && res.status < 500),
  });
}

/** The real TikTok Content Posting API client (`open.tiktokapis.com`). */
export function createTikTokClient(config: TikTokConfig, oauth: OAuthClient, clock: Clock): TikTokAdapter {
  async function call(
    accessToken: string,
    method: "GET" | "POST",
    path: string,
    body?: unknown,
  ): Promise<Record<string, unknown>> {
    const res = await platformFetch("tiktok", {
      method,
      url: `${config.apiBase}${path}`,
      headers: {
        authorization: `Bearer ${accessToken}`,
        ...(body === undefined ? {} : { "content-type": "application/json; charset=UTF-8" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: config.timeoutMs,
    });
    const parsed = await readJson(res);
    const code = stringField(objectField(parsed, "error"), "code");
    if (!res.ok || (code && code !== "ok")) throw envelopeError(res, parsed, clock);
    return objectField(parsed, "data") ?? {};
  }
  const required = (data: Record<string, unknown>, name: string): string => {
    const value = stringField(data, name);
    if (!value) throw new PlatformError("tiktok", "transient", "bad_response", `No ${name} in the answer.`);
    return value;
  };

  return {
    oauth,
    async userInfo(accessToken) {
      const data = await call(accessToken, "GET", "/v2/user/info/?fields=open_id,display_name");
      const user = objectField(data, "user") ?? {};
      return { openId: required(user, "open_id"), displayName: stringField(user, "display_name") ?? "" };
    },
    async creatorInfo(accessToken) {
      const data = await call(accessToken, "POST", "/v2/post/publish/creator_info/query/", {});
      const options = data.privacy_level_options;
      return {
        username: stringField(data, "creator_username") ?? "",
        privacyLevelOptions: Array.isArray(options) ? options.filter((o) => typeof o === "string") : [],
        commentDisabled: data.comment_disabled === true,
        duetDisabled: data.duet_disabled === true,
        stitchDisabled: data.stitch_disabled === true,
        ...(typeof data.max_video_post_duration_sec === "number" && data.max_video_post_duration_sec > 0
          ? { maxVideoPostDurationSec: data.max_video_post_duration_sec }
          : {}),
      };
    },
    async initVideo(accessToken, { mode, postInfo, plan }) {
      const source_info = {
        source: "FILE_UPLOAD",
        video_size: plan.videoSize,
        chunk_size: plan.chunkSize,
        total_chunk_count: plan.totalChunkCount,
      };
      const data =
        mode === "DIRECT_POST"
          ? await call(accessToken, "POST", "/v2/post/publish/video/init/", {
              post_info: postInfo,
              source_info,
            })
          : await call(accessToken, "POST", "/v2/post/publish/inbox/video/init/", { source_info });
      return { publishId: required(data, "publish_id"), uploadUrl: required(data, "upload_url") };
    },
    async initPhotos(accessToken, { mode, postInfo, photoUrls }) {
      const data = await call(accessToken, "POST", "/v2/post/publish/content/init/", {
        media_type: "PHOTO",
        post_mode: mode,
        post_info: postInfo,
        source_info: { source: "PULL_FROM_URL", photo_cover_index: 0, photo_images: photoUrls },
      });
      return { publishId: required(data, "publish_id") };
    },
    async uploadChunk(uploadUrl, { first, last, total, contentType, body }) {
      const res = await platformFetch("tiktok", {
        method: "PUT",
        url: uploadUrl,
        headers: {
          "content-type": contentType,
          "content-length": String(last - first + 1),
          "content-range": `bytes ${first}-${last}/${total}`,
        },
        body,
        timeoutMs: config.chunkTimeoutMs,
      });
      if (res.status === 200 || res.status === 201 || res.status === 206) {
        await res.body?.cancel();
        return;
      }
      throw envelopeError(res, await readJson(res), clock);
    },
    async fetchStatus(accessToken, publishId) {
      const data = await call(accessToken, "POST", "/v2/post/publish/status/fetch/", {
        publish_id: publishId,
      });
      const ids = data.publicaly_available_post_id ?? data.publicly_available_post_id;
      const publicId = Array.isArray(ids) ? ids[0] : ids;
      return {
        status: (stringField(data, "status") ?? "PROCESSING_UPLOAD") as PublishStatus["status"],
        failReason: stringField(data, "fail_reason"),
        publicPostId: publicId === undefined || publicId === null ? undefined : String(publicId),
        uploadedBytes: typeof data.uploaded_bytes === "number" ? data.uploaded_bytes : undefined,
      };
    },
  };
}

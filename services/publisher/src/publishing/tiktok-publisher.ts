import { withAccessToken } from "../connections/token-vault.ts";
import { mediaForPlatform } from "../media/platform-media.ts";
import { sendRange } from "../media/staged-media.ts";
import { PlatformError } from "../platforms/errors.ts";
import { type ChunkPlan, chunkAt, chunkRange, planChunks } from "../platforms/tiktok/chunk-plan.ts";
import type { CreatorInfo, PublishStatus } from "../platforms/tiktok/tiktok-client.ts";
import type { PlatformPublisherDeps, StepResult, TargetRun } from "./run-context.ts";
import { photoPostInfo, tiktokRefusal, videoPostInfo } from "./tiktok-post-info.ts";

/**
 * The handle of a TikTok target. `initiating` is saved before `init`; `publishId` right after
 * it, before the first chunk; `processing` once every byte is in (or the photos were handed over),
 * with `processingSince`, the instant the processing deadline counts from.
 */
type TikTokHandle = {
  phase: "initiating" | "uploading" | "processing";
  kind: "video" | "photo";
  publishId?: string;
  uploadUrl?: string;
  plan?: ChunkPlan;
  processingSince?: string;
};

/**
 * Publishes to TikTok: a video by FILE_UPLOAD (direct post or inbox draft) in chunks, or a photo
 * carousel by PULL_FROM_URL; then polls `status/fetch` until PUBLISH_COMPLETE,
 * SEND_TO_USER_INBOX or FAILED. After `init` only the same upload is resumed and the same
 * publish id polled. A photo `init` whose answer was lost cannot be told apart from one never
 * made, so it fails as PUBLISH_OUTCOME_UNKNOWN rather than risk a second post; a video `init`
 * publishes nothing until its bytes arrive, so it is simply made again.
 */
export async function publishToTikTok(run: TargetRun, deps: PlatformPublisherDeps): Promise<StepResult> {
  const items = run.target.content.mediaItems;
  const kind = items.some((item) => item.mediaType === "VIDEO") ? "video" : "photo";
  let handle = run.target.platformHandle as TikTokHandle | null;
  if (handle?.phase === "initiating" && handle.kind === "photo") {
    throw new PlatformError(
      "tiktok",
      "permanent",
      "PUBLISH_OUTCOME_UNKNOWN",
      "The photo post was handed to TikTok but its answer was lost; check the TikTok account before posting again.",
    );
  }
  if (!handle?.publishId) handle = await initiate(run, deps, kind);
  if (handle.phase === "uploading") handle = await upload(run, deps, handle);
  return poll(run, deps, handle);
}

const tokenCall = <T>(run: TargetRun, deps: PlatformPublisherDeps, call: (token: string) => Promise<T>) =>
  withAccessToken(deps.vault, run.target.connectionId, ({ secrets }) => call(secrets.accessToken));

/**
 * Makes an `init` call between an "initiating" marker and its answer. The access token is in hand
 * before the marker is saved, so a failed refresh leaves no marker. When TikTok refuses the call
 * outright (its error body, a 4xx or 429) nothing was created: the marker is cleared, and a
 * refused token is refreshed and the call made once more. Any other failure (a timeout, a reset,
 * a bare 5xx) keeps the marker: the answer was lost and the outcome is unknown.
 */
async function initCall<T>(
  run: TargetRun,
  deps: PlatformPublisherDeps,
  kind: "video" | "photo",
  call: (token: string) => Promise<T>,
): Promise<T> {
  const connectionId = run.target.connectionId;
  let token = (await deps.vault.open(connectionId)).secrets.accessToken;
  for (let attempt = 0; ; attempt += 1) {
    await run.saveHandle({ phase: "initiating", kind } satisfies TikTokHandle);
    try {
      return await call(token);
    } catch (error) {
      if (!(error instanceof PlatformError) || !error.refused) throw error;
      await run.saveHandle({});
      if (error.kind !== "unauthorized" || attempt > 0) throw error;
    }
    token = (await deps.vault.refreshRejected(connectionId, token)).secrets.accessToken;
  }
}

async function initiate(
  run: TargetRun,
  deps: PlatformPublisherDeps,
  kind: "video" | "photo",
): Promise<TikTokHandle> {
  const { content } = run.target;
  const tiktok = deps.adapters.tiktok;
  const creator: CreatorInfo = await tokenCall(run, deps, (token) => tiktok.creatorInfo(token));
  const refusal = tiktokRefusal(content, creator);
  if (refusal) throw new PlatformError("tiktok", "permanent", refusal.reason, refusal.message);
  const mode = content.tiktok.postMode;
  if (kind === "photo") {
    // Each photo as TikTok takes it (JPEG or WebP, at most 1080p), pulled from our public URL.
    const photos = await Promise.all(
      content.mediaItems.map(async (item, index) =>
        mediaForPlatform(deps.storage, await run.media(index), "tiktok", item.mediaType),
      ),
    );
    const { publishId } = await initCall(run, deps, kind, (token) =>
      tiktok.initPhotos(token, {
        mode,
        postInfo: photoPostInfo(content, creator),
        photoUrls: photos.map((p) => p.publicUrl),
      }),
    );
    const handle: TikTokHandle = {
      phase: "processing",
      kind,
      publishId,
      processingSince: deps.clock.now().toISOString(),
    };
    await run.saveHandle(handle);
    return handle;
  }
  const video = await mediaForPlatform(
    deps.storage,
    await run.media(content.mediaItems.findIndex((item) => item.mediaType === "VIDEO")),
    "tiktok",
    "VIDEO",
  );
  const plan = planChunks(video.size, deps.tuning.tiktokChunkBytes);
  const { publishId, uploadUrl } = await initCall(run, deps, kind, (token) =>
    tiktok.initVideo(token, { mode, postInfo: videoPostInfo(content, creator), plan }),
  );
  const handle: TikTokHandle = { phase: "uploading", kind, publishId, uploadUrl, plan };
  await run.saveHandle(handle);
  return handle;
}

async function upload(
  run: TargetRun,
  deps: PlatformPublisherDeps,
  handle: TikTokHandle,
): Promise<TikTokHandle> {
  const { plan, uploadUrl, publishId } = handle as Required<TikTokHandle>;
  const tiktok = deps.adapters.tiktok;
  const status = await tokenCall(run, deps, (token) => tiktok.fetchStatus(token, publishId));
  const uploaded = status.status === "PROCESSING_UPLOAD" ? (status.uploadedBytes ?? 0) : plan.videoSize;
  const start = uploaded >= plan.videoSize ? plan.totalChunkCount : chunkAt(plan, uploaded);
  if (start === null) {
    throw new PlatformError("tiktok", "permanent", "upload_out_of_step", "TikTok holds part of a chunk.");
  }
  const video = await run.media(
    run.target.content.mediaItems.findIndex((item) => item.mediaType === "VIDEO"),
  );
  for (let index = start; index < plan.totalChunkCount; index += 1) {
    run.checkClaim();
    const { first, last } = chunkRange(plan, index);
    await sendRange(video, { first, last }, (body) =>
      tiktok.uploadChunk(uploadUrl, {
        first,
        last,
        total: plan.videoSize,
        contentType: video.contentType,
        body,
      }),
    );
    await run.progress(first, last + 1, plan.videoSize);
  }
  const processing: TikTokHandle = {
    ...handle,
    phase: "processing",
    processingSince: deps.clock.now().toISOString(),
  };
  await run.saveHandle(processing);
  return processing;
}

async function poll(run: TargetRun, deps: PlatformPublisherDeps, handle: TikTokHandle): Promise<StepResult> {
  const publishId = handle.publishId as string;
  const status: PublishStatus = await tokenCall(run, deps, (token) =>
    deps.adapters.tiktok.fetchStatus(token, publishId),
  );
  if (status.status === "FAILED") {
    throw new PlatformError(
      "tiktok",
      "permanent",
      status.failReason ?? "publish_failed",
      "TikTok could not publish the post.",
    );
  }
  if (status.status === "SEND_TO_USER_INBOX")
    return { kind: "published", platformPostId: publishId, url: null };
  if (status.status === "PUBLISH_COMPLETE") {
    const id = status.publicPostId ?? publishId;
    return {
      kind: "published",
      platformPostId: id,
      url: status.publicPostId ? `https://www.tiktok.com/video/${id}` : null,
    };
  }
  return stillProcessing(run, deps, handle);
}

/**
 * TikTok still processes the post: poll again, until `tiktokProcessingTimeoutMs` after the media
 * went in; then the target fails (the post may still appear on TikTok later: the reason says so).
 * A handle saved before deadlines existed gets its start now.
 */
async function stillProcessing(
  run: TargetRun,
  deps: PlatformPublisherDeps,
  handle: TikTokHandle,
): Promise<StepResult> {
  const now = deps.clock.now().getTime();
  const since = handle.processingSince ? Date.parse(handle.processingSince) : Number.NaN;
  if (Number.isNaN(since)) {
    await run.saveHandle({ ...handle, processingSince: new Date(now).toISOString() });
    return {
      kind: "poll",
      afterMs: Math.min(deps.tuning.statusPollMs, deps.tuning.tiktokProcessingTimeoutMs),
    };
  }
  const left = since + deps.tuning.tiktokProcessingTimeoutMs - now;
  if (left <= 0) {
    throw new PlatformError(
      "tiktok",
      "permanent",
      "PROCESSING_TIMEOUT",
      `TikTok was still processing the post ${describeMs(now - since)} after its media went in; it may still appear on the TikTok account: check there before posting again.`,
    );
  }
  return { kind: "poll", afterMs: Math.min(deps.tuning.statusPollMs, left) };
}

const describeMs = (ms: number) =>
  ms >= 120_000 ? `${Math.round(ms / 60_000)} minutes` : `${Math.max(1, Math.round(ms / 1000))} seconds`;

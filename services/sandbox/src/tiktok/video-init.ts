import { randomBytes } from "node:crypto";
import type { ServiceApp } from "@app/core";
import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { originOf, readJsonObject } from "../kit/bodies.ts";
import { MediaDigest } from "../kit/digest.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { mountOperation } from "../kit/operations.ts";
import { checkChunkPlan } from "./chunk-plan.ts";
import { tiktokErrors, tiktokOk } from "./errors.ts";
import { pullMedia } from "./media-pull.ts";
import { checkPostInfo, isPostInfoProblem, type PostInfo } from "./post-info.ts";
import { checkPendingShares, newPost, newPublishId, requireVerifiedUrl } from "./posts.ts";
import type { TikTokPost } from "./state.ts";
import { type TikTokCaller, takeTikTokRate, tiktokCaller } from "./tiktok-auth.ts";

export const UPLOAD_PATH = "/tiktok-upload/video/";
/** Largest video TikTok takes (4 GB). */
const MAX_VIDEO_BYTES = 4 * 1024 ** 3;

const badBody = () => new PlatformFailure(400, "invalid_params", "The request body is not a JSON object.");

async function initVideo(c: Context, ctx: SandboxContext, caller: TikTokCaller, mode: TikTokPost["mode"]) {
  takeTikTokRate(ctx.limits.tiktokInit, caller);
  const body = await readJsonObject(c, badBody);
  let postInfo: PostInfo | null = null;
  if (mode === "DIRECT_POST") {
    const checked = checkPostInfo(body.post_info, caller.creator, "VIDEO");
    if (isPostInfoProblem(checked)) throw new PlatformFailure(400, checked.code, checked.message);
    postInfo = checked;
  } else {
    checkPendingShares(ctx, caller);
  }
  const source =
    typeof body.source_info === "object" && body.source_info !== null
      ? (body.source_info as Record<string, unknown>)
      : {};
  if (source.source === "FILE_UPLOAD") {
    const plan = checkChunkPlan(source);
    if (typeof plan === "string") throw new PlatformFailure(400, "invalid_params", plan);
    if (plan.videoSize > MAX_VIDEO_BYTES)
      throw new PlatformFailure(400, "invalid_params", "The video is larger than 4 GB.");
    const publishId = newPublishId("v_pub_file");
    const uploadToken = randomBytes(24).toString("base64url");
    const post = newPost(ctx, caller, {
      publishId,
      mode,
      mediaType: "VIDEO",
      source: "FILE_UPLOAD",
      postInfo,
      plan,
      uploadToken,
      digest: new MediaDigest(),
    });
    ctx.tiktok.posts.set(publishId, post);
    const uploadUrl = `${originOf(c)}${UPLOAD_PATH}?upload_id=${encodeURIComponent(publishId)}&upload_token=${uploadToken}`;
    return tiktokOk(c, { publish_id: publishId, upload_url: uploadUrl });
  }
  if (source.source === "PULL_FROM_URL") {
    const videoUrl = requireVerifiedUrl(ctx, source.video_url, "source_info.video_url");
    const publishId = newPublishId("v_pub_url");
    const pulled = await pullMedia(videoUrl, {
      timeoutMs: ctx.settings.tiktok.pullTimeoutSeconds * 1000,
      maxBytes: MAX_VIDEO_BYTES,
    });
    const post = newPost(ctx, caller, {
      publishId,
      mode,
      mediaType: "VIDEO",
      source: "PULL_FROM_URL",
      postInfo,
    });
    if ("failure" in pulled) post.pullFailure = "video_pull_failed";
    else post.fetched = [pulled];
    ctx.tiktok.posts.set(publishId, post);
    return tiktokOk(c, { publish_id: publishId });
  }
  throw new PlatformFailure(
    400,
    "invalid_params",
    "source_info.source must be FILE_UPLOAD or PULL_FROM_URL.",
  );
}

/** `POST /v2/post/publish/video/init/` (direct post) and `/v2/post/publish/inbox/video/init/` (draft to the inbox). */
export function registerTikTokVideoInit(app: ServiceApp, ctx: SandboxContext): void {
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "tiktok.video.init",
      platform: "tiktok",
      method: "post",
      path: "/v2/post/publish/video/init/",
      summary: "Direct post a video: post_info checked against the creator, FILE_UPLOAD or PULL_FROM_URL",
      errors: tiktokErrors,
    },
    (c) => initVideo(c, ctx, tiktokCaller(c, ctx, ["video.publish"]), "DIRECT_POST"),
  );
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "tiktok.inbox.video.init",
      platform: "tiktok",
      method: "post",
      path: "/v2/post/publish/inbox/video/init/",
      summary: "Upload a video to the creator's inbox as a draft (source_info only)",
      errors: tiktokErrors,
    },
    (c) => initVideo(c, ctx, tiktokCaller(c, ctx, ["video.upload"]), "MEDIA_UPLOAD"),
  );
}

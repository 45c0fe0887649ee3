import type { ServiceApp } from "@app/core";
import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { readJsonObject } from "../kit/bodies.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { mountOperation } from "../kit/operations.ts";
import { tiktokErrors, tiktokOk } from "./errors.ts";
import { pullMedia } from "./media-pull.ts";
import { checkPostInfo, isPostInfoProblem, type PostInfo } from "./post-info.ts";
import { checkPendingShares, newPost, newPublishId, requireVerifiedUrl } from "./posts.ts";
import type { PulledMedia } from "./state.ts";
import { takeTikTokRate, tiktokCaller } from "./tiktok-auth.ts";

const MAX_PHOTOS = 35;
const MAX_PHOTO_BYTES = 20 * 1024 * 1024;
/** TikTok takes JPEG and WEBP photos, not PNG. */
const PHOTO_TYPES = new Set(["image/jpeg", "image/jpg", "image/webp"]);

const invalid = (message: string) => new PlatformFailure(400, "invalid_params", message);

function checkInboxPostInfo(value: unknown): PostInfo | null {
  if (value === undefined) return null;
  const info = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const title = info.title ?? "";
  const description = info.description ?? null;
  if (typeof title !== "string" || [...title].length > 90)
    throw invalid("post_info.title is at most 90 characters.");
  if (description !== null && (typeof description !== "string" || [...description].length > 4000)) {
    throw invalid("post_info.description is at most 4000 characters.");
  }
  return {
    title,
    description: description as string | null,
    privacyLevel: "",
    disableComment: false,
    disableDuet: false,
    disableStitch: false,
    brandContentToggle: false,
    brandOrganicToggle: false,
    isAigc: false,
    autoAddMusic: info.auto_add_music === true,
    videoCoverTimestampMs: null,
  };
}

function checkPhotos(ctx: SandboxContext, source: Record<string, unknown>): string[] {
  if (source.source !== "PULL_FROM_URL") throw invalid("Photo posts take source PULL_FROM_URL only.");
  const images = source.photo_images;
  if (!Array.isArray(images) || images.length === 0 || images.length > MAX_PHOTOS) {
    throw invalid(`source_info.photo_images must list 1 to ${MAX_PHOTOS} image URLs.`);
  }
  const urls = images.map((url, index) => requireVerifiedUrl(ctx, url, `source_info.photo_images.${index}`));
  const cover = source.photo_cover_index ?? 0;
  if (typeof cover !== "number" || !Number.isInteger(cover) || cover < 0 || cover >= urls.length) {
    throw invalid("source_info.photo_cover_index must index one of photo_images.");
  }
  return urls;
}

/** Fetches each photo; the first failure names the post's fail_reason. */
async function pullPhotos(
  ctx: SandboxContext,
  urls: string[],
): Promise<{ fetched: PulledMedia[]; failure: string | null }> {
  const fetched: PulledMedia[] = [];
  for (const url of urls) {
    const pulled = await pullMedia(url, {
      timeoutMs: ctx.settings.tiktok.pullTimeoutSeconds * 1000,
      maxBytes: MAX_PHOTO_BYTES,
    });
    if ("failure" in pulled) return { fetched, failure: "photo_pull_failed" };
    if (!PHOTO_TYPES.has(pulled.contentType)) return { fetched, failure: "file_format_check_failed" };
    fetched.push(pulled);
  }
  return { fetched, failure: null };
}

async function initContent(c: Context, ctx: SandboxContext) {
  const caller = tiktokCaller(c, ctx, ["video.publish", "video.upload"]);
  const body = await readJsonObject(c, () => invalid("The request body is not a JSON object."));
  if (body.media_type !== "PHOTO") throw invalid("media_type must be PHOTO.");
  const mode = body.post_mode;
  if (mode !== "DIRECT_POST" && mode !== "MEDIA_UPLOAD")
    throw invalid("post_mode must be DIRECT_POST or MEDIA_UPLOAD.");
  const scope = mode === "DIRECT_POST" ? "video.publish" : "video.upload";
  if (!caller.grant.scopes.includes(scope)) {
    throw new PlatformFailure(401, "scope_not_authorized", `The user did not authorize the scope ${scope}.`);
  }
  takeTikTokRate(ctx.limits.tiktokInit, caller);
  let postInfo: PostInfo | null;
  if (mode === "DIRECT_POST") {
    const checked = checkPostInfo(body.post_info, caller.creator, "PHOTO");
    if (isPostInfoProblem(checked)) throw new PlatformFailure(400, checked.code, checked.message);
    postInfo = checked;
  } else {
    checkPendingShares(ctx, caller);
    postInfo = checkInboxPostInfo(body.post_info);
  }
  const source =
    typeof body.source_info === "object" && body.source_info !== null
      ? (body.source_info as Record<string, unknown>)
      : {};
  const urls = checkPhotos(ctx, source);
  const publishId = newPublishId("p_pub_url");
  const { fetched, failure } = await pullPhotos(ctx, urls);
  const post = newPost(ctx, caller, {
    publishId,
    mode,
    mediaType: "PHOTO",
    source: "PULL_FROM_URL",
    postInfo,
    fetched,
  });
  post.pullFailure = failure;
  ctx.tiktok.posts.set(publishId, post);
  return tiktokOk(c, { publish_id: publishId });
}

/** `POST /v2/post/publish/content/init/`: a photo carousel, posted directly or sent to the inbox. */
export function registerTikTokContentInit(app: ServiceApp, ctx: SandboxContext): void {
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "tiktok.content.init",
      platform: "tiktok",
      method: "post",
      path: "/v2/post/publish/content/init/",
      summary: "Post photos (media_type PHOTO, PULL_FROM_URL, 1–35 JPEG/WEBP images)",
      errors: tiktokErrors,
    },
    (c) => initContent(c, ctx),
  );
}

import type { Platform } from "../contracts/post.ts";
import type { CopyRemoval } from "../contracts/publishing.ts";

/**
 * TikTok's Content Posting API (developers.tiktok.com/doc/content-posting-api-reference-direct-post
 * and its siblings: creator_info, init, upload, status/fetch) has no call that deletes or hides a
 * post: a published TikTok stays until its creator removes it in the app. Said so, never faked.
 */
const TIKTOK_KEEPS_POSTS: CopyRemoval = {
  deleted: false,
  code: "NOT_SUPPORTED",
  reason: "TikTok's API offers no way to delete a post: remove it in the TikTok app.",
};

/** The answer for a platform that cannot delete through its API, or undefined when it can. */
export function platformWithoutDelete(platform: Platform): CopyRemoval | undefined {
  return platform === "tiktok" ? TIKTOK_KEEPS_POSTS : undefined;
}

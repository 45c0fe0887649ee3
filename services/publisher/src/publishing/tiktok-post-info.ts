import type { PostContent } from "../contracts/post.ts";
import type { CreatorInfo, TikTokPostInfo } from "../platforms/tiktok/tiktok-client.ts";
import { truncate } from "./post-texts.ts";

/** Why a TikTok post cannot go out for this creator, or undefined when it can. */
export function tiktokRefusal(
  content: PostContent,
  creator: CreatorInfo,
): { reason: string; message: string } | undefined {
  const { privacy, commercialType, postMode } = content.tiktok;
  if (postMode === "DIRECT_POST" && !creator.privacyLevelOptions.includes(privacy)) {
    return {
      reason: "privacy_level_option_mismatch",
      message: `${privacy} is not one of the creator's options (${creator.privacyLevelOptions.join(", ")}).`,
    };
  }
  if (
    postMode === "DIRECT_POST" &&
    privacy === "SELF_ONLY" &&
    (commercialType === 2 || commercialType === 3)
  ) {
    return { reason: "branded_content_private", message: "Branded content cannot be posted as SELF_ONLY." };
  }
  return undefined;
}

/**
 * `post_info` for a direct video post: the caption as title (≤ 2200), the privacy level,
 * interactions off where the post or the creator's settings say so, and the commercial content
 * toggles (1 own brand → organic, 2 branded content, 3 both).
 */
export function videoPostInfo(content: PostContent, creator: CreatorInfo): TikTokPostInfo {
  const { tiktok } = content;
  return {
    title: truncate(content.caption ?? "", 2200),
    privacy_level: tiktok.privacy,
    disable_comment: tiktok.disableComment || creator.commentDisabled,
    disable_duet: tiktok.disableDuet || creator.duetDisabled,
    disable_stitch: tiktok.disableStitch || creator.stitchDisabled,
    brand_organic_toggle: tiktok.commercialType === 1 || tiktok.commercialType === 3,
    brand_content_toggle: tiktok.commercialType === 2 || tiktok.commercialType === 3,
  };
}

/** `post_info` for a photo post: title ≤ 90 (the caption's first line), description ≤ 4000. */
export function photoPostInfo(content: PostContent, creator: CreatorInfo): TikTokPostInfo {
  const caption = content.caption ?? "";
  const base = {
    title: truncate(caption.split("\n")[0] ?? "", 90),
    description: truncate(caption, 4000),
  };
  if (content.tiktok.postMode === "MEDIA_UPLOAD") return base;
  const { tiktok } = content;
  return {
    ...base,
    privacy_level: tiktok.privacy,
    disable_comment: tiktok.disableComment || creator.commentDisabled,
    auto_add_music: true,
    brand_organic_toggle: tiktok.commercialType === 1 || tiktok.commercialType === 3,
    brand_content_toggle: tiktok.commercialType === 2 || tiktok.commercialType === 3,
  };
}

import type { Platform, PostContent } from "../contracts/post.ts";
import { graphemeCount, POST_LIMITS } from "./post-limits.ts";

function counts(content: PostContent) {
  const videos = content.mediaItems.filter((item) => item.mediaType === "VIDEO").length;
  return { videos, images: content.mediaItems.length - videos };
}

const RULES: Record<Platform, (content: PostContent) => string | undefined> = {
  youtube(content) {
    const { videos, images } = counts(content);
    if (videos !== 1 || images > 0) return "YouTube takes exactly one video (no images, no text-only posts)";
    return undefined;
  },
  tiktok(content) {
    const { videos, images } = counts(content);
    if (videos === 0 && images === 0) return "TikTok does not take text-only posts";
    if (videos > 0 && (videos > 1 || images > 0)) {
      return "TikTok takes one video, or a carousel of images only";
    }
    if (images > POST_LIMITS.tiktokImages)
      return `a TikTok photo post has at most ${POST_LIMITS.tiktokImages} images`;
    return undefined;
  },
  bluesky(content) {
    const { videos, images } = counts(content);
    if (content.caption && graphemeCount(content.caption) > POST_LIMITS.blueskyGraphemes) {
      return `Bluesky text has at most ${POST_LIMITS.blueskyGraphemes} characters (graphemes), hashtags included`;
    }
    if (videos > 1 || (videos === 1 && images > 0)) return "Bluesky takes one video, or up to 4 images";
    if (images > POST_LIMITS.blueskyImages)
      return `Bluesky takes at most ${POST_LIMITS.blueskyImages} images`;
    return undefined;
  },
};

/** Why a platform would refuse this content, or undefined when it accepts it. */
export function contentProblemFor(platform: Platform, content: PostContent): string | undefined {
  return RULES[platform](content);
}

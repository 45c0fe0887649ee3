import type { Platform, PostContent } from "../contracts/post.ts";
import { graphemeCount, POST_LIMITS } from "./post-limits.ts";

function counts(content: PostContent) {
  const videos = content.mediaItems.filter((item) => item.mediaType === "VIDEO").length;
  return { videos, images: content.mediaItems.length - videos };
}

const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** YouTube's description as the publisher sends it: the override, else the caption, without `<` and `>`. */
export const youtubeDescriptionOf = (content: PostContent): string =>
  (content.youtube.description ?? content.caption ?? "").replace(/[<>]/g, "");

/**
 * The text limits as each platform counts them. Bluesky: 300 graphemes and 3,000 UTF-8 bytes
 * (lexicon `app.bsky.feed.post`). TikTok: a video's caption 2,200 and a photo post's description
 * 4,000 UTF-16 units ("runes", Content Posting API reference). YouTube: a description of 5,000
 * bytes (`videos` resource, `snippet.description`).
 */
export const TEXT_LIMITS = {
  blueskyGraphemes: POST_LIMITS.blueskyGraphemes,
  blueskyBytes: 3000,
  tiktokVideoCaptionUnits: 2200,
  tiktokPhotoTitleUnits: 90,
  tiktokPhotoDescriptionUnits: 4000,
  youtubeDescriptionBytes: 5000,
} as const;

const RULES: Record<Platform, (content: PostContent) => string | undefined> = {
  youtube(content) {
    const { videos, images } = counts(content);
    if (videos !== 1 || images > 0) return "YouTube takes exactly one video (no images, no text-only posts)";
    const bytes = utf8Bytes(youtubeDescriptionOf(content));
    if (bytes > TEXT_LIMITS.youtubeDescriptionBytes) {
      return `a YouTube description has at most ${TEXT_LIMITS.youtubeDescriptionBytes} bytes (UTF-8); this one has ${bytes}`;
    }
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
    const units = (content.caption ?? "").length;
    if (videos === 1 && units > TEXT_LIMITS.tiktokVideoCaptionUnits) {
      return `a TikTok video caption has at most ${TEXT_LIMITS.tiktokVideoCaptionUnits} UTF-16 units, hashtags included; this one has ${units}`;
    }
    if (images > 0 && units > TEXT_LIMITS.tiktokPhotoDescriptionUnits) {
      return `a TikTok photo description has at most ${TEXT_LIMITS.tiktokPhotoDescriptionUnits} UTF-16 units, hashtags included; this one has ${units}`;
    }
    return undefined;
  },
  bluesky(content) {
    const { videos, images } = counts(content);
    const text = content.caption ?? "";
    const graphemes = graphemeCount(text);
    if (graphemes > TEXT_LIMITS.blueskyGraphemes) {
      return `Bluesky text has at most ${TEXT_LIMITS.blueskyGraphemes} characters (graphemes), hashtags included; this one has ${graphemes}`;
    }
    const bytes = utf8Bytes(text);
    if (bytes > TEXT_LIMITS.blueskyBytes) {
      return `Bluesky text has at most ${TEXT_LIMITS.blueskyBytes} bytes (UTF-8), hashtags included; this one has ${bytes}`;
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

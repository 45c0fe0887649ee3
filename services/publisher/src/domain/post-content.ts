import type { MediaItem, PostContent } from "../contracts/post.ts";
import { mediaTypeOfUrl } from "./media-types.ts";
import { characterCount, POST_LIMITS } from "./post-limits.ts";
import { brandedContentIsPrivate, TIKTOK_PRIVACY_LEVELS } from "./tiktok-privacy.ts";

/** The post payload of publish, schedule and queue, as parsed from JSON (types checked, rules not yet). */
export type PostPayload = {
  videoUrl?: string;
  mediaUrls?: string[];
  mediaItems?: MediaItem[];
  caption?: string;
  title?: string;
  text?: string;
  description?: string;
  hashtags?: string;
  youtubeTitle?: string;
  youtubeDescription?: string;
  youtubePrivacy?: PostContent["youtube"]["privacy"];
  tiktokPostMode?: PostContent["tiktok"]["postMode"];
  tiktokPrivacy?: string;
  tiktokCommercialType?: number;
  tiktokDisableComment?: boolean;
  tiktokDisableDuet?: boolean;
  tiktokDisableStitch?: boolean;
};

export type PayloadIssue = { path: string; message: string };

export type ContentResult = { ok: true; content: PostContent } | { ok: false; issues: PayloadIssue[] };

const CAPTION_ALIASES = ["caption", "title", "text", "description"] as const;

/** The caption: the first of caption, title, text, description given non-blank, with the hashtags after it. */
function captionOf(payload: PostPayload): { caption?: string; hashtags?: string } {
  const base = CAPTION_ALIASES.map((name) => payload[name]?.trim()).find((text) => text);
  const hashtags = payload.hashtags?.trim() || undefined;
  const caption = [base, hashtags].filter(Boolean).join("\n\n") || undefined;
  return { caption, hashtags };
}

/** videoUrl, then mediaUrls (typed by extension), then mediaItems, each URL once. */
function mediaOf(payload: PostPayload, issues: PayloadIssue[]): MediaItem[] {
  const items: MediaItem[] = [];
  if (payload.videoUrl) items.push({ url: payload.videoUrl, mediaType: "VIDEO" });
  payload.mediaUrls?.forEach((url, index) => {
    const mediaType = mediaTypeOfUrl(url);
    if (mediaType) items.push({ url, mediaType });
    else {
      issues.push({
        path: `mediaUrls.${index}`,
        message:
          "the media type cannot be told from the URL's extension; send it in mediaItems with its mediaType",
      });
    }
  });
  items.push(...(payload.mediaItems ?? []));
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(item.url) && seen.add(item.url));
}

function tiktokOf(payload: PostPayload, issues: PayloadIssue[]): PostContent["tiktok"] {
  const privacy = payload.tiktokPrivacy ?? "PUBLIC_TO_EVERYONE";
  const commercialType = (payload.tiktokCommercialType ?? 0) as PostContent["tiktok"]["commercialType"];
  if (!(TIKTOK_PRIVACY_LEVELS as readonly string[]).includes(privacy)) {
    issues.push({ path: "tiktokPrivacy", message: `must be one of ${TIKTOK_PRIVACY_LEVELS.join(", ")}` });
  }
  if (brandedContentIsPrivate(commercialType, privacy)) {
    issues.push({
      path: "tiktokPrivacy",
      message: "branded content (tiktokCommercialType 2 or 3) cannot be SELF_ONLY",
    });
  }
  return {
    postMode: payload.tiktokPostMode ?? "DIRECT_POST",
    privacy,
    commercialType,
    disableComment: payload.tiktokDisableComment ?? false,
    disableDuet: payload.tiktokDisableDuet ?? false,
    disableStitch: payload.tiktokDisableStitch ?? false,
  };
}

/**
 * Validates a post payload and normalises it into {@link PostContent}: caption aliases resolved
 * and hashtags appended, every media URL typed, defaults applied, the limits checked. Rules that
 * depend on the target platforms are {@link contentProblemFor}'s.
 */
export function toPostContent(payload: PostPayload): ContentResult {
  const issues: PayloadIssue[] = [];
  const { caption, hashtags } = captionOf(payload);
  const mediaItems = mediaOf(payload, issues);
  if (caption === undefined && mediaItems.length === 0 && issues.length === 0) {
    issues.push({
      path: "caption",
      message: "a post needs a caption or media (videoUrl, mediaUrls or mediaItems)",
    });
  }
  if (caption !== undefined && characterCount(caption) > POST_LIMITS.captionCharacters) {
    issues.push({
      path: "caption",
      message: `must have at most ${POST_LIMITS.captionCharacters} characters, hashtags included`,
    });
  }
  if (mediaItems.length > POST_LIMITS.mediaItems) {
    issues.push({
      path: "mediaItems",
      message: `a post takes at most ${POST_LIMITS.mediaItems} media items`,
    });
  }
  const title = payload.youtubeTitle?.trim() || undefined;
  if (title !== undefined && characterCount(title) > POST_LIMITS.youtubeTitleCharacters) {
    issues.push({
      path: "youtubeTitle",
      message: `must have at most ${POST_LIMITS.youtubeTitleCharacters} characters`,
    });
  }
  const tiktok = tiktokOf(payload, issues);
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    content: {
      ...(caption === undefined ? {} : { caption }),
      ...(hashtags === undefined ? {} : { hashtags }),
      mediaItems,
      youtube: {
        ...(title === undefined ? {} : { title }),
        ...(payload.youtubeDescription?.trim() ? { description: payload.youtubeDescription.trim() } : {}),
        privacy: payload.youtubePrivacy ?? "private",
      },
      tiktok,
    },
  };
}

import type { MediaItem, PostContent } from "../contracts/post.ts";
import type { PostPayload } from "./post-content.ts";

/** What `PATCH /api/v1/posts/{id}` may change: when, the caption (or an alias), the media, the targets. */
export type PostEdit = {
  scheduledFor?: string;
  caption?: string;
  title?: string;
  text?: string;
  description?: string;
  hashtags?: string;
  videoUrl?: string;
  mediaUrls?: string[];
  mediaItems?: MediaItem[];
  connectionIds?: string[];
  groupIds?: string[];
};

/** The parts of a post an edit changes, named as the API names them. */
export type EditedPart = "scheduledFor" | "caption" | "media" | "targets";

const CAPTION_TEXT_FIELDS = ["caption", "title", "text", "description"] as const;
const CAPTION_FIELDS = [...CAPTION_TEXT_FIELDS, "hashtags"] as const;
const MEDIA_FIELDS = ["videoUrl", "mediaUrls", "mediaItems"] as const;
const TARGET_FIELDS = ["connectionIds", "groupIds"] as const;

const has = (edit: PostEdit, fields: readonly (keyof PostEdit)[]) =>
  fields.some((field) => edit[field] !== undefined);

/** The parts an edit touches, in a fixed order; none for an empty edit. */
export function editedParts(edit: PostEdit): EditedPart[] {
  const parts: EditedPart[] = [];
  if (edit.scheduledFor !== undefined) parts.push("scheduledFor");
  if (has(edit, CAPTION_FIELDS)) parts.push("caption");
  if (has(edit, MEDIA_FIELDS)) parts.push("media");
  if (has(edit, TARGET_FIELDS)) parts.push("targets");
  return parts;
}

/**
 * The caption as it was given, before the hashtags were appended to it (`toPostContent` stores
 * `caption + "\n\n" + hashtags`).
 */
function givenCaption(content: PostContent): string | undefined {
  const { caption, hashtags } = content;
  if (caption === undefined || hashtags === undefined) return caption;
  if (caption === hashtags) return undefined;
  const suffix = `\n\n${hashtags}`;
  return caption.endsWith(suffix) ? caption.slice(0, -suffix.length) : caption;
}

/** A stored post's content as the payload that makes it again (`toPostContent` of it is the same content). */
export function payloadOfContent(content: PostContent): PostPayload {
  const payload: PostPayload = {
    mediaItems: content.mediaItems,
    youtubePrivacy: content.youtube.privacy,
    tiktokPostMode: content.tiktok.postMode,
    tiktokPrivacy: content.tiktok.privacy,
    tiktokCommercialType: content.tiktok.commercialType,
    tiktokDisableComment: content.tiktok.disableComment,
    tiktokDisableDuet: content.tiktok.disableDuet,
    tiktokDisableStitch: content.tiktok.disableStitch,
  };
  const caption = givenCaption(content);
  if (caption !== undefined) payload.caption = caption;
  if (content.hashtags !== undefined) payload.hashtags = content.hashtags;
  if (content.youtube.title !== undefined) payload.youtubeTitle = content.youtube.title;
  if (content.youtube.description !== undefined) payload.youtubeDescription = content.youtube.description;
  return payload;
}

/** A post payload with its targets, as publish, schedule and queue take it. */
export type TargetedPayload = PostPayload & { connectionIds?: string[]; groupIds?: string[] };

/**
 * The payload of the post as it would be after `edit`, to be checked as a new post is. A part the
 * edit names replaces the post's: `caption` or an alias replaces the caption's text, and `hashtags`
 * the hashtags appended to it (each stays when not given; an empty string removes it); any media
 * field replaces all the media; `connectionIds` or `groupIds` replace the targets. The rest
 * (YouTube and TikTok settings) stays as it is.
 */
export function editedPayload(
  post: { content: PostContent; connectionIds: readonly string[] },
  edit: PostEdit,
): TargetedPayload {
  const payload: TargetedPayload = { ...payloadOfContent(post.content) };
  if (has(edit, CAPTION_TEXT_FIELDS)) {
    for (const field of CAPTION_TEXT_FIELDS) delete payload[field];
    for (const field of CAPTION_TEXT_FIELDS) if (edit[field] !== undefined) payload[field] = edit[field];
  }
  if (edit.hashtags !== undefined) payload.hashtags = edit.hashtags;
  if (has(edit, MEDIA_FIELDS)) {
    for (const field of MEDIA_FIELDS) delete payload[field];
    if (edit.videoUrl !== undefined) payload.videoUrl = edit.videoUrl;
    if (edit.mediaUrls !== undefined) payload.mediaUrls = edit.mediaUrls;
    if (edit.mediaItems !== undefined) payload.mediaItems = edit.mediaItems;
  }
  if (has(edit, TARGET_FIELDS)) {
    if (edit.connectionIds !== undefined) payload.connectionIds = edit.connectionIds;
    if (edit.groupIds !== undefined) payload.groupIds = edit.groupIds;
  } else {
    payload.connectionIds = [...post.connectionIds];
  }
  return payload;
}

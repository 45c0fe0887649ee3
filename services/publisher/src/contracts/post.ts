/**
 * The publisher's shared model: what the API stores for a post and what publishing reads. Both
 * halves of the service build on these types; change them only together.
 */

export type Platform = "youtube" | "tiktok" | "bluesky";

export type PostStatus = "draft" | "scheduled" | "publishing" | "published" | "failed" | "partial";

export type TargetStatus = "scheduled" | "publishing" | "published" | "failed" | "canceled";

export type MediaItem = { url: string; mediaType: "IMAGE" | "VIDEO" };

/** A validated, normalised post payload (`posts.content`). */
export type PostContent = {
  /** Caption with its aliases resolved (caption | title | text | description) and hashtags appended. */
  caption?: string;
  hashtags?: string;
  /** Every media item, typed (videoUrl and mediaUrls normalised into this list). */
  mediaItems: MediaItem[];
  youtube: { title?: string; description?: string; privacy: "private" | "unlisted" | "public" };
  tiktok: {
    postMode: "DIRECT_POST" | "MEDIA_UPLOAD";
    privacy: string;
    commercialType: 0 | 1 | 2 | 3;
    disableComment: boolean;
    disableDuet: boolean;
    disableStitch: boolean;
  };
};

/** A target as publishing sees it. */
export type PostTarget = {
  id: string;
  postId: string;
  connectionId: string;
  platform: Platform;
  status: TargetStatus;
  dueAt: Date;
  attempts: number;
  platformHandle: Record<string, unknown> | null;
  platformPostId: string | null;
  url: string | null;
  error: string | null;
};

/** Per-target outcome, as `GET /api/v1/posts/{id}` and publish-now report it. */
export type TargetOutcome = {
  connectionId: string;
  platform: Platform;
  status: TargetStatus;
  platformPostId: string | null;
  url: string | null;
  error: string | null;
  attempts: number;
  /** When the published copy was removed from its platform (`DELETE …/published`); null while it stands. */
  deletedAt: Date | null;
};

import { toIso, z } from "@app/core";
import type { TargetOutcome } from "../contracts/post.ts";
import type { PostRecord } from "../store/posts.ts";

const STATUSES = ["draft", "scheduled", "publishing", "published", "failed", "partial"] as const;

export const PostSchema = z
  .object({
    id: z.string().openapi({ example: "post_3kTq…" }),
    video_url: z.string().nullable().openapi({ description: "The post's first video, if any" }),
    media_items: z.array(z.object({ url: z.string(), mediaType: z.enum(["IMAGE", "VIDEO"]) })),
    caption: z.string().nullable().openapi({ description: "With the hashtags appended" }),
    youtube_title: z.string().nullable(),
    youtube_description: z.string().nullable(),
    youtube_privacy: z.enum(["private", "unlisted", "public"]),
    status: z.enum(STATUSES),
    scheduled_for: z
      .string()
      .nullable()
      .openapi({ description: "ISO 8601 UTC with milliseconds; null when not scheduled" }),
    platforms: z.array(z.string()),
    connection_ids: z.array(z.string()),
    created_at: z.string().openapi({ description: "ISO 8601 UTC with milliseconds" }),
  })
  .openapi("Post");

export const TargetOutcomeSchema = z
  .object({
    connectionId: z.string(),
    platform: z.string(),
    status: z.enum(["scheduled", "publishing", "published", "failed", "canceled"]),
    platformPostId: z.string().nullable(),
    url: z.string().nullable(),
    error: z.string().nullable(),
    attempts: z.number().int(),
    deletedAt: z.string().nullable().openapi({
      description:
        "When the published copy was removed from its platform (ISO 8601 UTC); null while it stands. The status stays `published`",
    }),
  })
  .openapi("TargetOutcome");

export const PostWithTargetsSchema = PostSchema.extend({ targets: z.array(TargetOutcomeSchema) }).openapi(
  "PostWithTargets",
);

export const POST_STATUSES = STATUSES;

/** A post as the spec shows it (snake_case fields). */
export function postView(post: PostRecord) {
  const { content } = post;
  return {
    id: post.id,
    video_url: content.mediaItems.find((item) => item.mediaType === "VIDEO")?.url ?? null,
    media_items: content.mediaItems,
    caption: content.caption ?? null,
    youtube_title: content.youtube.title ?? null,
    youtube_description: content.youtube.description ?? null,
    youtube_privacy: content.youtube.privacy,
    status: post.status,
    scheduled_for: post.scheduledFor ? toIso(post.scheduledFor) : null,
    platforms: post.platforms,
    connection_ids: post.connectionIds,
    created_at: toIso(post.createdAt),
  };
}

export function targetView(outcome: TargetOutcome) {
  return {
    connectionId: outcome.connectionId,
    platform: outcome.platform,
    status: outcome.status,
    platformPostId: outcome.platformPostId,
    url: outcome.url,
    error: outcome.error,
    attempts: outcome.attempts,
    deletedAt: outcome.deletedAt ? toIso(outcome.deletedAt) : null,
  };
}

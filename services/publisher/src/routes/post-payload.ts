import { z } from "@app/core";
import { POST_LIMITS } from "../domain/post-limits.ts";
import { isTimeZone } from "../domain/queue-slots.ts";
import { isStorableText, UNSTORABLE_TEXT } from "../domain/text.ts";
import { textField } from "./text-field.ts";

const mediaUrl = z
  .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
  .refine(isStorableText, UNSTORABLE_TEXT)
  .max(POST_LIMITS.urlCharacters)
  .openapi({ example: "https://media.example.com/clip.mp4" });

const id = textField().min(1).max(128);
const text = (max: number) => textField().max(max);

const MediaItemSchema = z
  .object({ url: mediaUrl, mediaType: z.enum(["IMAGE", "VIDEO"]) })
  .openapi("MediaItem");

/** The post payload of publish, schedule and queue (spec 001, "Post payload"). */
export const PostPayloadSchema = z.object({
  videoUrl: mediaUrl.optional().openapi({ description: "Legacy single-video URL" }),
  mediaUrls: z
    .array(mediaUrl)
    .max(POST_LIMITS.mediaItems)
    .optional()
    .openapi({ description: "Public media URLs; the type comes from the extension (.mp4, .jpg, …)" }),
  mediaItems: z
    .array(MediaItemSchema)
    .max(POST_LIMITS.mediaItems)
    .optional()
    .openapi({ description: "Preferred; 2 or more items make a carousel" }),
  caption: text(10_000)
    .optional()
    .openapi({ description: `At most ${POST_LIMITS.captionCharacters} characters with the hashtags` }),
  title: text(10_000).optional().openapi({ description: "Alias of caption" }),
  text: text(10_000).optional().openapi({ description: "Alias of caption" }),
  description: text(10_000).optional().openapi({ description: "Alias of caption" }),
  hashtags: text(POST_LIMITS.captionCharacters).optional().openapi({ example: "#launch #demo" }),
  connectionIds: z
    .array(id)
    .max(POST_LIMITS.connectionIds)
    .optional()
    .openapi({
      description: `Ids from GET /api/v1/connections (at most ${POST_LIMITS.connectionIds}); required unless groupIds is given`,
    }),
  groupIds: z
    .array(id)
    .max(POST_LIMITS.connectionIds)
    .optional()
    .openapi({ description: "Groups whose connections are targeted too (GET /api/v1/groups)" }),
  youtubeTitle: text(400)
    .optional()
    .openapi({ description: `At most ${POST_LIMITS.youtubeTitleCharacters} characters` }),
  youtubeDescription: text(5_000).optional(),
  youtubePrivacy: z.enum(["private", "unlisted", "public"]).optional().openapi({ default: "private" }),
  tiktokPostMode: z.enum(["DIRECT_POST", "MEDIA_UPLOAD"]).optional().openapi({ default: "DIRECT_POST" }),
  tiktokPrivacy: text(64).optional().openapi({
    default: "PUBLIC_TO_EVERYONE",
    description: "One of the creator's current options (creator_info); TikTok's documented values otherwise",
  }),
  tiktokCommercialType: z
    .number()
    .int()
    .min(0)
    .max(3)
    .optional()
    .openapi({ description: "0 none, 1 own brand, 2 branded content, 3 both" }),
  tiktokDisableComment: z.boolean().optional(),
  tiktokDisableDuet: z.boolean().optional(),
  tiktokDisableStitch: z.boolean().optional(),
});

export const PublishPayloadSchema = PostPayloadSchema.openapi("PublishPayload");

export const SchedulePayloadSchema = PostPayloadSchema.extend({
  scheduledFor: z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 date-time with an offset or Z" })
    .openapi({ example: "2026-12-01T09:00:00+01:00" }),
}).openapi("SchedulePayload");

export const QueueSettingsSchema = z
  .object({
    postsPerDay: z
      .union([z.literal(1), z.literal(2), z.literal(3)])
      .optional()
      .openapi({ description: "1 → 09:00; 2 → 09:00, 17:00; 3 → 09:00, 13:00, 18:00 (local)" }),
    allowedDays: z
      .array(z.number().int().min(0).max(6))
      .min(1)
      .max(7)
      .optional()
      .openapi({ description: "0 = Sunday … 6 = Saturday", example: [1, 2, 3, 4, 5] }),
    timezone: textField()
      .max(64)
      .refine(
        isTimeZone,
        "must be an IANA time zone name spelled as IANA does, such as Europe/Berlin or UTC (no offsets)",
      )
      .optional()
      .openapi({ example: "America/New_York" }),
  })
  .openapi("QueueSettings");

export const QueuePayloadSchema = PostPayloadSchema.extend({
  settings: QueueSettingsSchema.optional().openapi({ description: "Overrides the account's smart schedule" }),
}).openapi("QueuePayload");

export type PostPayloadBody = z.infer<typeof PostPayloadSchema>;

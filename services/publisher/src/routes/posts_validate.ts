import { createRoute, ErrorBodySchema, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import { PostPayloadSchema, QueueSettingsSchema, SchedulePayloadSchema } from "./post-payload.ts";
import { POST_CHECK_RESPONSES } from "./prepare-post.ts";
import { validatePost } from "./validate-post.ts";

/** The body of a publish, schedule or queue: `scheduledFor` and `settings` are checked when given. */
export const ValidatePayloadSchema = PostPayloadSchema.extend({
  scheduledFor: SchedulePayloadSchema.shape.scheduledFor.optional(),
  settings: QueueSettingsSchema.optional(),
}).openapi("ValidatePayload");

const size = { width: z.number().int(), height: z.number().int(), bytes: z.number().int() };

const TransformSchema = z
  .discriminatedUnion("kind", [
    z.object({
      kind: z.literal("image_fitted"),
      field: z.string().openapi({ example: "mediaItems.0" }),
      url: z.string(),
      from: z.object({ format: z.enum(["jpeg", "png", "gif", "webp"]), ...size }),
      to: z.object({ contentType: z.string().openapi({ example: "image/jpeg" }), ...size }),
    }),
    z.object({
      kind: z.literal("title_derived"),
      field: z.literal("title"),
      value: z.string(),
      maxLength: z.number().int(),
      unit: z.enum(["characters", "utf16_units"]),
      cut: z.boolean().openapi({ description: "The caption's first line was longer, and was cut" }),
    }),
    z.object({
      kind: z.literal("characters_removed"),
      field: z.enum(["title", "description"]),
      characters: z.array(z.string()),
    }),
  ])
  .openapi("PostTransform");

const PostValidationSchema = z
  .object({
    valid: z.boolean().openapi({ description: "A create with this body would be taken, as things are now" }),
    errors: z.array(ErrorBodySchema).openapi({
      description:
        "What refuses the post as a whole (the payload, scheduledFor, its media), as a create answers it",
    }),
    targets: z.array(
      z.object({
        connectionId: z.string(),
        platform: z.enum(["youtube", "tiktok", "bluesky"]).nullable(),
        accepted: z.boolean().openapi({
          description:
            "Every check of this target ran and none refused it (false without errors when a refusal of the whole post kept them from running)",
        }),
        errors: z.array(ErrorBodySchema).openapi({ description: "Its refusal, as a create would answer it" }),
        transforms: z.array(TransformSchema).openapi({
          description: "What it would be sent other than as given: images made to fit, derived titles",
        }),
      }),
    ),
  })
  .openapi("PostValidation");

/** The answer of POST /api/v1/posts/validate. */
export type PostValidationAnswer = z.infer<typeof PostValidationSchema>;

/** POST /api/v1/posts/validate: the dry run of a publish, schedule or queue, per target; makes nothing. */
export function registerPostsValidate(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/api/v1/posts/validate",
    operationId: "posts_validate",
    tags: ["Posts"],
    summary: "Check a post without making it (dry run)",
    description:
      "Takes the body of a publish, schedule or queue and runs a create's checks on it (payload, scheduledFor, connections, TikTok creator_info, media, fitting images), answering for each target what would be refused, with the error a create would answer, or what would be sent other than as given: images made to fit (size, format, bytes), titles derived from the caption (and cut). Nothing is made: no post, no media record, no stored copy.",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:write"),
    request: { body: { required: true, content: { "application/json": { schema: ValidatePayloadSchema } } } },
    responses: {
      200: jsonResponse(PostValidationSchema, "The verdict, per target"),
      400: errorResponseSpec("A body that is not a post payload's shape (VALIDATION_FAILED)"),
      ...API_KEY_RESPONSES,
      ...POST_CHECK_RESPONSES,
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    const answer: PostValidationAnswer = await validatePost(deps, accountId, c.req.valid("json"));
    return c.json(answer, 200);
  });
}

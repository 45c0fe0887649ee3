import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { findPost, targetOutcomes } from "../store/posts.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import { editPost } from "./edit-post.ts";
import { PostPayloadSchema, SchedulePayloadSchema } from "./post-payload.ts";
import { PostWithTargetsSchema, postView, targetView } from "./post-views.ts";
import { postNotFound } from "./posts_get.ts";
import { POST_CHECK_RESPONSES } from "./prepare-post.ts";
import { textField } from "./text-field.ts";

/** What an edit may change; any other field is refused, so nothing the caller meant is ignored. */
export const PostEditSchema = z
  .strictObject({
    scheduledFor: SchedulePayloadSchema.shape.scheduledFor.optional(),
    ...PostPayloadSchema.pick({
      caption: true,
      title: true,
      text: true,
      description: true,
      hashtags: true,
      videoUrl: true,
      mediaUrls: true,
      mediaItems: true,
      connectionIds: true,
      groupIds: true,
    }).shape,
  })
  .openapi("PostEdit");

/** PATCH /api/v1/posts/{id}: changes when a scheduled post goes out, its caption, media or targets. */
export function registerPostsUpdate(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "patch",
    path: "/api/v1/posts/{id}",
    operationId: "posts_update",
    tags: ["Posts"],
    summary: "Reschedule or edit a scheduled post",
    description:
      "Changes a scheduled post: `scheduledFor`, the caption (or an alias, and `hashtags`), the media (`videoUrl`, `mediaUrls`, `mediaItems`: they replace all of it) or the targets (`connectionIds`, `groupIds`: they replace them). The post as it would be is checked as a new post is, and the edit is written whole or not at all: once a worker has claimed one of its targets it is 409 POST_PUBLISHING_STARTED and nothing changes. A new `scheduledFor` records `post.rescheduled`.",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:write"),
    request: {
      params: z.object({ id: textField().min(1).max(128) }),
      body: { required: true, content: { "application/json": { schema: PostEditSchema } } },
    },
    responses: {
      200: jsonResponse(PostWithTargetsSchema, "The post as edited"),
      400: errorResponseSpec(
        "Invalid edit, time in the past, connection or content, as for a new post; or a draft (POST_NOT_SCHEDULED)",
      ),
      ...API_KEY_RESPONSES,
      404: errorResponseSpec("No such post of yours (POST_NOT_FOUND)"),
      409: errorResponseSpec(
        "Publishing has begun (POST_PUBLISHING_STARTED), or another edit or a cancel came first (POST_EDIT_CONFLICT); nothing changed",
      ),
      ...POST_CHECK_RESPONSES,
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    const { id } = c.req.valid("param");
    await editPost(deps, accountId, id, c.req.valid("json"));
    const post = await findPost(deps.db, accountId, id);
    if (!post) throw postNotFound(id);
    const targets = await targetOutcomes(deps.db, id);
    return c.json({ ...postView(post), targets: targets.map(targetView) }, 200);
  });
}

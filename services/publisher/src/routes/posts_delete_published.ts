import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { deletePublished } from "../lifecycle/delete-published.ts";
import { findPost } from "../store/posts.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import { postNotFound } from "./posts_get.ts";
import { textField } from "./text-field.ts";

export const DeletePublishedAnswerSchema = z
  .object({
    postId: z.string(),
    allDeleted: z.boolean().openapi({ description: "Every target's copy is gone from its platform" }),
    targets: z.array(
      z.object({
        connectionId: z.string(),
        platform: z.enum(["youtube", "tiktok", "bluesky"]),
        platformPostId: z.string().nullable(),
        deleted: z.boolean(),
        deletedAt: z
          .string()
          .nullable()
          .openapi({ description: "When the copy was removed (ISO 8601 UTC); null while it stands" }),
        code: z
          .enum([
            "NOT_SUPPORTED",
            "RECONNECT_REQUIRED",
            "PERMISSION_MISSING",
            "REFUSED",
            "UNAVAILABLE",
            "STILL_PUBLISHING",
          ])
          .nullable()
          .openapi({ description: "Why the copy stays (null when deleted)" }),
        reason: z.string().nullable(),
      }),
    ),
  })
  .openapi("DeletePublishedAnswer");

/** DELETE /api/v1/posts/{id}/published: removes the post's published copies where the platform allows. */
export function registerPostsDeletePublished(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "delete",
    path: "/api/v1/posts/{id}/published",
    operationId: "posts_delete_published",
    tags: ["Posts"],
    summary: "Delete a post's published copies from the platforms",
    description:
      "YouTube (videos.delete) and Bluesky (deleteRecord) copies are removed; TikTok offers no delete and is reported so (NOT_SUPPORTED). Each target says what was removed and what stays, and why. The post and its targets stay, the removed ones with `deletedAt`; `post.deleted` tells it.",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:write"),
    request: { params: z.object({ id: textField().min(1).max(128) }) },
    responses: {
      200: jsonResponse(DeletePublishedAnswerSchema, "What each target's platform removed, and what stays"),
      ...API_KEY_RESPONSES,
      404: errorResponseSpec("No such post of yours (POST_NOT_FOUND)"),
      409: errorResponseSpec("None of the post's targets was published (POST_NOT_PUBLISHED)"),
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    const { id } = c.req.valid("param");
    if (!(await findPost(deps.db, accountId, id))) throw postNotFound(id);
    return c.json(await deletePublished(deps, { id, accountId }), 200);
  });
}

import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { PublisherError } from "../errors.ts";
import { findPost, returnToDraft } from "../store/posts.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import { postNotFound } from "./posts_get.ts";
import { textField } from "./text-field.ts";

const notScheduled = (id: string, status: string) =>
  new PublisherError("POST_NOT_SCHEDULED", `Only a scheduled post can be cancelled; this one is ${status}.`, {
    id,
    status,
  });

/** DELETE /api/v1/posts: cancels a scheduled post, which stays as a draft with no schedule. */
export function registerPostsCancel(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "delete",
    path: "/api/v1/posts",
    operationId: "posts_cancel",
    tags: ["Posts"],
    summary: "Cancel a scheduled post",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:write"),
    request: {
      body: {
        required: true,
        content: {
          "application/json": { schema: z.object({ id: textField().min(1).max(128) }).openapi("CancelPost") },
        },
      },
    },
    responses: {
      200: jsonResponse(z.object({ success: z.literal(true) }), "Cancelled: the post is a draft again"),
      400: errorResponseSpec("Invalid body, or the post is not scheduled (POST_NOT_SCHEDULED)"),
      ...API_KEY_RESPONSES,
      404: errorResponseSpec("No such post of yours (POST_NOT_FOUND)"),
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    const { id } = c.req.valid("json");
    const post = await findPost(deps.db, accountId, id);
    if (!post) throw postNotFound(id);
    if (post.status !== "scheduled") throw notScheduled(id, post.status);
    // Publishing cancels only targets no worker has claimed; a post already under way stays.
    if (!(await deps.publishing.cancel(id))) throw notScheduled(id, "publishing");
    await returnToDraft(deps.db, id, deps.clock.now());
    return c.json({ success: true as const }, 200);
  });
}

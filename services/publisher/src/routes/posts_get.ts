import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { PublisherError } from "../errors.ts";
import { findPost, targetOutcomes } from "../store/posts.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import { PostWithTargetsSchema, postView, targetView } from "./post-views.ts";
import { textField } from "./text-field.ts";

/** The refusal of a post id that is not one of the account's. */
export const postNotFound = (id: string) =>
  new PublisherError("POST_NOT_FOUND", "You have no post with this id.", { id });

/** GET /api/v1/posts/{id}: one post with each target's outcome. */
export function registerPostsGet(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "get",
    path: "/api/v1/posts/{id}",
    operationId: "posts_get",
    tags: ["Posts"],
    summary: "One post and its outcome on each platform",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:read"),
    request: { params: z.object({ id: textField().min(1).max(128) }) },
    responses: {
      200: jsonResponse(PostWithTargetsSchema, "The post"),
      ...API_KEY_RESPONSES,
      404: errorResponseSpec("No such post of yours (POST_NOT_FOUND)"),
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    const { id } = c.req.valid("param");
    const post = await findPost(deps.db, accountId, id);
    if (!post) throw postNotFound(id);
    const targets = await targetOutcomes(deps.db, post.id);
    return c.json({ ...postView(post), targets: targets.map(targetView) }, 200);
  });
}

import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard, keyHolderOf } from "../auth/guard.ts";
import type { TargetOutcome } from "../contracts/post.ts";
import { insertPost, targetOutcomes } from "../store/posts.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import { PublishPayloadSchema } from "./post-payload.ts";
import { preparePost } from "./prepare-post.ts";

const PublishResult = z
  .object({
    success: z.boolean().openapi({ description: "No target failed (each published, or still running)" }),
    allPublished: z.boolean(),
    postId: z.string(),
    platforms: z.array(
      z.object({
        connectionId: z.string(),
        platform: z.string(),
        success: z.boolean().openapi({ description: "This target is published" }),
        platformPostId: z.string().nullable(),
      }),
    ),
  })
  .openapi("PublishResult");

/** The publish-now answer from the targets' outcomes. */
export function publishResult(postId: string, outcomes: readonly TargetOutcome[]) {
  return {
    success: outcomes.every((o) => o.status !== "failed" && o.status !== "canceled"),
    allPublished: outcomes.length > 0 && outcomes.every((o) => o.status === "published"),
    postId,
    platforms: outcomes.map((o) => ({
      connectionId: o.connectionId,
      platform: o.platform,
      success: o.status === "published",
      platformPostId: o.platformPostId,
    })),
  };
}

/** POST /api/v1/publish: creates the post with its targets due now, then publishes them and waits a while. */
export function registerPostsPublish(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/api/v1/publish",
    operationId: "posts_publish",
    tags: ["Posts"],
    summary: "Publish a post now",
    description:
      "Targets still running when the wait ends keep going in the background; follow them with GET /api/v1/posts/{id}.",
    security: API_KEY_SECURITY,
    middleware: [apiKeyGuard(deps, "posts:write")],
    request: { body: { required: true, content: { "application/json": { schema: PublishPayloadSchema } } } },
    responses: {
      200: jsonResponse(PublishResult, "The post and each platform's outcome so far"),
      400: errorResponseSpec(
        "Invalid payload, connection or content (VALIDATION_FAILED, INVALID_CONNECTION, …)",
      ),
      ...API_KEY_RESPONSES,
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = keyHolderOf(c);
    const prepared = await preparePost(deps, accountId, c.req.valid("json"));
    const now = deps.clock.now();
    const postId = await deps.db.transaction((tx) =>
      insertPost(tx, { accountId, ...prepared, scheduledFor: null, dueAt: now, now }),
    );
    let outcomes: TargetOutcome[];
    try {
      outcomes = await deps.publishing.publishNow(postId, deps.publishTimeoutMs);
    } catch (error) {
      // The post and its due targets are stored: the workers take them over.
      deps.logger.error({ err: error, postId }, "publish-now failed; targets left to the workers");
      outcomes = await targetOutcomes(deps.db, postId);
    }
    return c.json(publishResult(postId, outcomes), 200);
  });
}

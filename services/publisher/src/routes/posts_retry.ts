import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { POST_LIMITS } from "../domain/post-limits.ts";
import { retryPost } from "../lifecycle/retry-post.ts";
import { findPost } from "../store/posts.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import { POST_STATUSES } from "./post-views.ts";
import { postNotFound } from "./posts_get.ts";
import { textField } from "./text-field.ts";

/** The longest reason a forced retry keeps in the post's history. */
export const MAX_RETRY_REASON_CHARS = 500;

const RetryBody = z
  .object({
    force: z.boolean().optional().openapi({
      description:
        "Run targets whose outcome is unknown (the platform may already hold the post) anyway; they start over",
    }),
    reason: textField()
      .min(1)
      .max(MAX_RETRY_REASON_CHARS)
      .optional()
      .openapi({ description: "Why (required with force): kept in the post's history" }),
    connectionIds: z
      .array(textField().min(1).max(128))
      .min(1)
      .max(POST_LIMITS.connectionIds)
      .optional()
      .openapi({
        description: "Only these connections' targets (each must have failed); all failed ones by default",
      }),
  })
  .refine((body) => body.force !== true || body.reason !== undefined, {
    path: ["reason"],
    message: "A forced retry needs a reason: it is kept in the post's history.",
  })
  .openapi("RetryPost");

export const RetryAnswerSchema = z
  .object({
    success: z.literal(true),
    postId: z.string(),
    status: z.enum(POST_STATUSES),
    retried: z.array(
      z.object({
        connectionId: z.string(),
        platform: z.enum(["youtube", "tiktok", "bluesky"]),
        evidence: z.enum(["nothing_sent", "same_copy", "unknown"]).openapi({
          description:
            "What the target's saved handle proved: nothing reached the platform, the retry resumes the one copy it can make, or (forced) unknown",
        }),
        forced: z.boolean(),
        handleDropped: z.boolean(),
      }),
    ),
  })
  .openapi("RetryAnswer");

/** POST /api/v1/posts/{id}/retry: runs a post's failed targets again, when that cannot post twice. */
export function registerPostsRetry(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/api/v1/posts/{id}/retry",
    operationId: "posts_retry",
    tags: ["Posts"],
    summary: "Retry a post's failed targets",
    description:
      "Each failed target whose saved state proves nothing reached the platform (or that pins the one copy a re-run can make) becomes scheduled, due now, with its attempts counted afresh; the workers publish it. A target the platform may already hold is refused with PUBLISH_OUTCOME_UNKNOWN unless `force` (with a `reason`). All asked-for targets run, or none.",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:write"),
    request: {
      params: z.object({ id: textField().min(1).max(128) }),
      body: { required: false, content: { "application/json": { schema: RetryBody } } },
    },
    responses: {
      200: jsonResponse(RetryAnswerSchema, "The targets run again; the post's status now"),
      400: errorResponseSpec(
        "Invalid body (VALIDATION_FAILED: force without a reason), or a target's connection needs reconnecting (INVALID_CONNECTION)",
      ),
      ...API_KEY_RESPONSES,
      404: errorResponseSpec("No such post of yours (POST_NOT_FOUND)"),
      409: errorResponseSpec(
        "A target the platform may already hold, named in `targets` (PUBLISH_OUTCOME_UNKNOWN), or nothing asked for failed (NOTHING_TO_RETRY)",
      ),
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    if (!(await findPost(deps.db, accountId, id))) throw postNotFound(id);
    const answer = await retryPost(deps, {
      accountId,
      postId: id,
      force: body.force === true,
      reason: body.reason,
      connectionIds: body.connectionIds,
    });
    return c.json({ success: true as const, ...answer }, 200);
  });
}

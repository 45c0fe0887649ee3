import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import type { TargetOutcome, TargetStatus } from "../contracts/post.ts";
import { derivePostStatus } from "../domain/post-status.ts";
import { insertPost, targetOutcomes } from "../store/posts.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import {
  answerIdempotently,
  IDEMPOTENT_CREATE_RESPONSES,
  IdempotencyKeyHeaders,
} from "./idempotent-create.ts";
import { PublishPayloadSchema } from "./post-payload.ts";
import { POST_CHECK_RESPONSES, preparePost } from "./prepare-post.ts";

const TARGET_STATUSES = ["scheduled", "publishing", "published", "failed", "canceled"] as const;
const POST_STATUSES = ["draft", "scheduled", "publishing", "published", "failed", "partial"] as const;

const PublishResult = z
  .object({
    success: z.boolean().openapi({
      description:
        "The request was handled and no target has failed; false only once a target failed. True while targets still run: they publish later (do not publish again: follow the post)",
    }),
    allPublished: z
      .boolean()
      .openapi({ description: "Every target is published (false while any still runs)" }),
    status: z
      .enum(POST_STATUSES)
      .openapi({ description: "The post's status, as GET /api/v1/posts/{id} shows it" }),
    postId: z
      .string()
      .openapi({ description: "Follow the targets still running with GET /api/v1/posts/{postId}" }),
    message: z.string(),
    platforms: z.array(
      z.object({
        connectionId: z.string(),
        platform: z.string(),
        success: z.boolean().nullable().openapi({
          description: "true published, false failed; null while the target is still scheduled or publishing",
        }),
        status: z.enum(TARGET_STATUSES),
        platformPostId: z.string().nullable(),
        url: z.string().nullable(),
        error: z.string().nullable().openapi({ description: "Why it failed, or the last retried error" }),
      }),
    ),
  })
  .openapi("PublishResult");

/** The answer of POST /api/v1/publish. */
export type PublishAnswer = z.infer<typeof PublishResult>;

const UNFINISHED: ReadonlySet<TargetStatus> = new Set(["scheduled", "publishing"]);

/** A target's `success`: settled ones say how they ended; an unfinished one claims nothing. */
function targetSuccess(status: TargetStatus): boolean | null {
  if (UNFINISHED.has(status)) return null;
  return status === "published";
}

/** What the answer's message says of the targets: those still running, then those that failed. */
function messageOf(postId: string, total: number, unfinished: number, failed: number): string {
  const failures = `${failed} of ${total} targets failed`;
  if (unfinished > 0) {
    const running = `${unfinished} of ${total} targets still publishing: follow them with GET /api/v1/posts/${postId} rather than publishing again.`;
    return failed > 0 ? `${failures}; ${running}` : running;
  }
  return failed > 0 ? `${failures}; the others are published.` : "Published to every target.";
}

/**
 * The publish-now answer from the targets' outcomes. `success` is always a boolean, as the spec
 * gives it: the request was handled and no target has failed (a null while targets ran was falsy,
 * and a client's `if (!r.success) retry()` posted again). Targets still running when the wait
 * ended keep going with the workers and publish later: each is reported as such (its own
 * `success: null`, its status), `allPublished` is false, and the message names the post to follow.
 */
export function publishResult(postId: string, outcomes: readonly TargetOutcome[]) {
  const unfinished = outcomes.filter((o) => UNFINISHED.has(o.status)).length;
  const failed = outcomes.filter((o) => o.status === "failed" || o.status === "canceled").length;
  return {
    success: failed === 0,
    allPublished: outcomes.length > 0 && outcomes.every((o) => o.status === "published"),
    status: derivePostStatus(outcomes.map((o) => o.status)),
    postId,
    message: messageOf(postId, outcomes.length, unfinished, failed),
    platforms: outcomes.map((o) => ({
      connectionId: o.connectionId,
      platform: o.platform,
      success: targetSuccess(o.status),
      status: o.status,
      platformPostId: o.platformPostId,
      url: o.url,
      error: o.error,
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
      "Targets still running when the wait ends keep going in the background and publish later: each is answered with its own `success: null` and its status, `allPublished` is false, and the answer's `success` stays true unless a target failed; follow them with GET /api/v1/posts/{id} rather than publishing again.",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:write"),
    request: {
      headers: IdempotencyKeyHeaders,
      body: { required: true, content: { "application/json": { schema: PublishPayloadSchema } } },
    },
    responses: {
      200: jsonResponse(PublishResult, "The post and each platform's outcome so far"),
      400: errorResponseSpec(
        "Invalid payload, connection or content (VALIDATION_FAILED, INVALID_CONNECTION, …)",
      ),
      ...API_KEY_RESPONSES,
      ...IDEMPOTENT_CREATE_RESPONSES,
      ...POST_CHECK_RESPONSES,
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    const body = c.req.valid("json");
    const operation = "posts_publish";
    return answerIdempotently<PublishAnswer>(c, deps, { accountId, operation, body }, async (progress) => {
      const prepared = await preparePost(deps, accountId, body);
      const now = deps.clock.now();
      const postId = await deps.db.transaction((tx) =>
        insertPost(tx, { accountId, ...prepared, scheduledFor: null, dueAt: now, now }),
      );
      progress.created = { postId };
      let outcomes: TargetOutcome[];
      try {
        outcomes = await deps.publishing.publishNow(postId, deps.publishTimeoutMs);
      } catch (error) {
        // The post and its due targets are stored: the workers take them over.
        deps.logger.error({ err: error, postId }, "publish-now failed; targets left to the workers");
        outcomes = await targetOutcomes(deps.db, postId);
      }
      return publishResult(postId, outcomes);
    });
  });
}

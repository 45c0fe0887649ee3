import { createRoute, errorResponseSpec, jsonResponse, toIso, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { insertPost } from "../store/posts.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import {
  answerIdempotently,
  IDEMPOTENT_CREATE_RESPONSES,
  IdempotencyKeyHeaders,
} from "./idempotent-create.ts";
import { futureInstant } from "./post-checks.ts";
import { SchedulePayloadSchema } from "./post-payload.ts";
import { POST_CHECK_RESPONSES, preparePost } from "./prepare-post.ts";

const ScheduleResult = z
  .object({
    success: z.literal(true),
    postId: z.string(),
    scheduledFor: z
      .string()
      .openapi({ example: "2026-12-01T08:00:00.000Z", description: "ISO 8601 UTC with milliseconds" }),
    platforms: z.array(z.string()),
    connectionIds: z.array(z.string()),
  })
  .openapi("ScheduleResult");

/** The answer of POST /api/v1/schedule. */
export type ScheduleAnswer = z.infer<typeof ScheduleResult>;

/** POST /api/v1/schedule: a post published at `scheduledFor`. */
export function registerPostsSchedule(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/api/v1/schedule",
    operationId: "posts_schedule",
    tags: ["Posts"],
    summary: "Schedule a post",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:write"),
    request: {
      headers: IdempotencyKeyHeaders,
      body: { required: true, content: { "application/json": { schema: SchedulePayloadSchema } } },
    },
    responses: {
      200: jsonResponse(ScheduleResult, "Scheduled"),
      400: errorResponseSpec("Invalid payload, time in the past, connection or content"),
      ...API_KEY_RESPONSES,
      ...IDEMPOTENT_CREATE_RESPONSES,
      ...POST_CHECK_RESPONSES,
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    const body = c.req.valid("json");
    const operation = "posts_schedule";
    return answerIdempotently<ScheduleAnswer>(c, deps, { accountId, operation, body }, async (progress) => {
      const now = deps.clock.now();
      const when = futureInstant(body.scheduledFor, now);
      const prepared = await preparePost(deps, accountId, body);
      const postId = await deps.db.transaction((tx) =>
        insertPost(tx, { accountId, ...prepared, scheduledFor: when, dueAt: when, now }),
      );
      progress.created = { postId };
      return {
        success: true as const,
        postId,
        scheduledFor: toIso(when),
        platforms: [...new Set(prepared.targets.map((t) => t.platform))],
        connectionIds: prepared.targets.map((t) => t.connectionId),
      };
    });
  });
}

import { createRoute, errorResponseSpec, jsonResponse, toIso, z } from "@app/core";
import { isStalePreparedStatement } from "@app/db";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { candidateSlots, QUEUE_HORIZON_DAYS, type QueueSettings } from "../domain/queue-slots.ts";
import { PublisherError } from "../errors.ts";
import { firstFreeSlot, insertPost, lockQueueReadSettings } from "../store/posts.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import {
  answerIdempotently,
  type CreateProgress,
  IDEMPOTENT_CREATE_RESPONSES,
  IdempotencyKeyHeaders,
} from "./idempotent-create.ts";
import { QueuePayloadSchema } from "./post-payload.ts";
import { POST_CHECK_RESPONSES, preparePost } from "./prepare-post.ts";

const QueueResult = z
  .object({
    success: z.literal(true),
    postId: z.string(),
    scheduledFor: z.string().openapi({ example: "2026-12-01T09:00:00.000Z" }),
    message: z.string(),
    platforms: z.array(z.string()),
    connectionIds: z.array(z.string()),
    scheduleSettings: z.object({
      postsPerDay: z.number().int(),
      allowedDays: z.array(z.number().int()),
      timezone: z.string(),
    }),
  })
  .openapi("QueueResult");

/** The answer of POST /api/v1/queue. */
export type QueueAnswer = z.infer<typeof QueueResult>;

/** POST /api/v1/queue: a post in the next free slot of the account's (or the request's) schedule. */
export function registerPostsQueue(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/api/v1/queue",
    operationId: "posts_queue",
    tags: ["Posts"],
    summary: "Queue a post in the next free slot",
    description:
      "Slots are local times in the schedule's time zone (postsPerDay 1 → 09:00; 2 → 09:00, 17:00; 3 → 09:00, 13:00, 18:00) on the allowed days (0 = Sunday). A slot is free when no scheduled, publishing or published post for one of the same connections sits at that instant. 90 days are searched.",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:write"),
    request: {
      headers: IdempotencyKeyHeaders,
      body: { required: true, content: { "application/json": { schema: QueuePayloadSchema } } },
    },
    responses: {
      200: jsonResponse(QueueResult, "Queued"),
      400: errorResponseSpec("Invalid payload, connection or content; NO_SLOTS when every slot is taken"),
      ...API_KEY_RESPONSES,
      ...IDEMPOTENT_CREATE_RESPONSES,
      ...POST_CHECK_RESPONSES,
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    const body = c.req.valid("json");
    return answerIdempotently<QueueAnswer>(
      c,
      deps,
      { accountId, operation: "posts_queue", body },
      (progress) => queuePost(deps, accountId, body, progress),
    );
  });
}

/** Checks the post, then writes it in the first free slot (under the account's queue lock). */
async function queuePost(
  deps: RouteDeps,
  accountId: string,
  body: z.infer<typeof QueuePayloadSchema>,
  progress: CreateProgress,
): Promise<QueueAnswer> {
  const prepared = await preparePost(deps, accountId, body);
  const connectionIds = prepared.targets.map((t) => t.connectionId);
  // Two statements find the slot: the lock with the schedule, then the first free candidate.
  const place = () =>
    deps.db.transaction(async (tx) => {
      const saved = await lockQueueReadSettings(tx, accountId);
      const settings: QueueSettings = {
        postsPerDay: body.settings?.postsPerDay ?? saved.postsPerDay,
        allowedDays: [...new Set(body.settings?.allowedDays ?? saved.allowedDays)].sort((a, b) => a - b),
        timeZone: body.settings?.timezone ?? saved.timeZone,
      };
      const now = deps.clock.now();
      const candidates = candidateSlots({ now, settings });
      const slot = await firstFreeSlot(tx, { accountId, connectionIds, at: candidates });
      if (!slot) return { settings };
      const postId = await insertPost(tx, { accountId, ...prepared, scheduledFor: slot, dueAt: slot, now });
      return { settings, slot, postId };
    });
  // Its statements are prepared per connection: once another instance's migration retypes what
  // they return, each connection refuses them once and they are prepared afresh; run it again.
  const placed = await place().catch((error: unknown) => {
    if (!isStalePreparedStatement(error)) throw error;
    return place();
  });
  const { settings } = placed;
  if (!placed.slot) {
    throw new PublisherError("NO_SLOTS", `No free queue slot in the next ${QUEUE_HORIZON_DAYS} days.`, {
      scheduleSettings: {
        postsPerDay: settings.postsPerDay,
        allowedDays: settings.allowedDays,
        timezone: settings.timeZone,
      },
    });
  }
  progress.created = { postId: placed.postId as string };
  return {
    success: true as const,
    postId: placed.postId as string,
    scheduledFor: toIso(placed.slot),
    message: `Queued for ${toIso(placed.slot)}, the next free slot.`,
    platforms: [...new Set(prepared.targets.map((t) => t.platform))],
    connectionIds,
    scheduleSettings: {
      postsPerDay: settings.postsPerDay,
      allowedDays: settings.allowedDays,
      timezone: settings.timeZone,
    },
  };
}

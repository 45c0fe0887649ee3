import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { MAX_HISTORY_ENTRIES, postHistory } from "../store/events.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import { HistoryEntrySchema, historyEntryView } from "./event-views.ts";
import { postNotFound } from "./posts_get.ts";
import { textField } from "./text-field.ts";

const PostHistory = z
  .object({
    postId: z.string(),
    history: z.array(HistoryEntrySchema),
    truncated: z
      .boolean()
      .openapi({ description: `More than ${MAX_HISTORY_ENTRIES} entries: the oldest are shown` }),
  })
  .openapi("PostHistory");

/** GET /api/v1/posts/{id}/events: every event and step of one post, oldest first. */
export function registerPostsEvents(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "get",
    path: "/api/v1/posts/{id}/events",
    operationId: "posts_events",
    tags: ["Posts", "Events"],
    summary: "One post's history: its events and every step of every target",
    description:
      "Claimed by which worker, handle saved, upload progress, lease lost and resumed elsewhere, the platform's answer (code and message), retries with their delay, the outcome; never a token or an upload URL.",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:read"),
    request: { params: z.object({ id: textField().min(1).max(128) }) },
    responses: {
      200: jsonResponse(PostHistory, "The post's history, oldest first"),
      ...API_KEY_RESPONSES,
      404: errorResponseSpec("No such post of yours (POST_NOT_FOUND)"),
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    const { id } = c.req.valid("param");
    const history = await postHistory(deps.db, accountId, id);
    if (!history) throw postNotFound(id);
    return c.json(
      { postId: id, history: history.entries.map(historyEntryView), truncated: history.truncated },
      200,
    );
  });
}

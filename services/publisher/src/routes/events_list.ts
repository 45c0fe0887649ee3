import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { decodeEventCursor, encodeEventCursor } from "../domain/event-cursor.ts";
import { listEvents } from "../store/events.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import { EventSchema, eventView } from "./event-views.ts";
import { pageLimitParam } from "./page-query.ts";
import { textField } from "./text-field.ts";

/** Page size bounds of GET /api/v1/events. */
export const EVENTS_PAGE = { min: 1, max: 500, default: 100 } as const;

const EventsQuery = z.object({
  // Decoded here, so that a cursor this service never issued is a fault of the query string.
  after: textField()
    .min(1)
    .max(128)
    .transform((text, context) => {
      const position = decodeEventCursor(text);
      if (!position) context.addIssue({ code: "custom", message: "is not a cursor this service issued" });
      return position ?? z.NEVER;
    })
    .optional()
    .openapi({
      type: "string",
      description: "A `nextCursor` (or an event's `cursor`): the events after it; from the first without it",
    }),
  limit: pageLimitParam(EVENTS_PAGE),
});

const EventPage = z
  .object({
    events: z.array(EventSchema),
    nextCursor: z.string().nullable().openapi({
      description:
        "Where to read on from (`after`): the last event's cursor, or the `after` given when no event followed it; null only when the account has no event yet",
    }),
    hasMore: z.boolean().openapi({ description: "More events can be read at once with `nextCursor`" }),
  })
  .openapi("EventPage");

/** GET /api/v1/events: the account's events in commit order, from a cursor (replay what was missed). */
export function registerEventsList(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "get",
    path: "/api/v1/events",
    operationId: "events_list",
    tags: ["Events"],
    summary: "Your events, in commit order, after a cursor",
    description:
      "The same events the webhooks send, each with its stable `id`. Keep the `nextCursor` and ask again with `after` to receive what happened since: an event committed later is never placed before a cursor already handed out, so none is skipped or repeated.",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:read"),
    request: { query: EventsQuery },
    responses: {
      200: jsonResponse(EventPage, "A page of events, oldest first"),
      400: errorResponseSpec("Invalid cursor or limit (VALIDATION_FAILED)"),
      ...API_KEY_RESPONSES,
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    const query = c.req.valid("query");
    const page = await listEvents(deps.db, {
      accountId,
      after: query.after,
      limit: query.limit ?? EVENTS_PAGE.default,
    });
    const last = page.events.at(-1)?.position ?? query.after;
    return c.json(
      {
        events: page.events.map(eventView),
        nextCursor: last ? encodeEventCursor(last) : null,
        hasMore: page.more,
      },
      200,
    );
  });
}

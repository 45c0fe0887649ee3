import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { MAX_REF_LENGTH, PRINTABLE_REF, resolveRef } from "../domain/ref.ts";
import { MarketsError } from "../errors.ts";
import { eventView } from "../views/event.ts";
import { EventSchema } from "./schemas.ts";
import type { MarketsApp, RouteDeps } from "./shared.ts";

const EventQuery = z.object({
  ref: z
    .string()
    .min(1, "must not be empty")
    .max(MAX_REF_LENGTH, `must be at most ${MAX_REF_LENGTH} characters`)
    .regex(PRINTABLE_REF, "must be printable text")
    .openapi({
      description:
        "A polymarket.com event or market URL, an event or market slug, a numeric event or market id, a condition id (0x + 64 hex) or a token id",
      example: "https://polymarket.com/event/fed-decision-in-december",
    }),
});

/** GET /pm/event: the full event a ref names (no key needed). */
export function registerPmEvent(app: MarketsApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "get",
    path: "/pm/event",
    operationId: "pm_event",
    tags: ["Events"],
    summary: "The event a ref names, with every market",
    description:
      "Resolves, in this order of precedence: a site URL (/event/<slug>[/<market>], /market/<slug>, optional locale), a condition id, a token id (20+ digits), a numeric id (event, then market), a slug (event, then market).",
    request: { query: EventQuery },
    responses: {
      200: jsonResponse(EventSchema, "The event, every market, per outcome the implied probability"),
      400: errorResponseSpec(
        "Empty, too long, non-printable (VALIDATION_FAILED) or malformed (INVALID_REF) ref",
      ),
      404: errorResponseSpec("No event matches the ref (EVENT_NOT_FOUND)"),
    },
  });
  app.openapi(route, async (c) => {
    const { ref } = c.req.valid("query");
    const resolution = resolveRef(ref, deps.catalogue.refIndex);
    if (resolution.kind === "malformed") {
      throw new MarketsError("INVALID_REF", resolution.reason);
    }
    if (resolution.kind === "not_found") {
      throw new MarketsError("EVENT_NOT_FOUND", "No event or market matches this ref.");
    }
    const event = deps.catalogue.event(resolution.eventId);
    if (!event) throw new MarketsError("EVENT_NOT_FOUND", "No event or market matches this ref.");
    const live = await deps.states.live(event.markets);
    return c.json(eventView(event, live), 200);
  });
}

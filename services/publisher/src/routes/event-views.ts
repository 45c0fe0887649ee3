import { toIso, z } from "@app/core";
import { PUBLISHER_EVENT_TYPES } from "../contracts/events.ts";
import { encodeEventCursor } from "../domain/event-cursor.ts";
import { POST_STEP_NAMES } from "../domain/post-steps.ts";
import type { HistoryEntry, PublisherEvent } from "../store/events.ts";

const Payload = z.record(z.string(), z.unknown());

/** An event as `GET /api/v1/events` shows it (and the webhooks send it). */
export const EventSchema = z
  .object({
    id: z.string().openapi({ example: "evt_9sLk…", description: "Stable: deduplicate on it" }),
    type: z.enum(PUBLISHER_EVENT_TYPES),
    occurredAt: z.string().openapi({ description: "ISO 8601 UTC with milliseconds" }),
    postId: z.string().nullable(),
    targetId: z.string().nullable(),
    data: Payload.openapi({ description: "The event's payload (see the README's events table)" }),
    cursor: z.string().openapi({ description: "Pass as `after` to read the events that follow this one" }),
  })
  .openapi("Event");

/** An event in the API's shape. */
export function eventView(event: PublisherEvent) {
  return {
    id: event.id,
    type: event.type,
    occurredAt: toIso(event.occurredAt),
    postId: event.postId,
    targetId: event.targetId,
    data: event.data,
    cursor: encodeEventCursor(event.position),
  };
}

/** One entry of a post's history: an event, or a step of a target's run. */
export const HistoryEntrySchema = z
  .discriminatedUnion("kind", [
    z.object({
      kind: z.literal("event"),
      id: z.string(),
      type: z.enum(PUBLISHER_EVENT_TYPES),
      occurredAt: z.string(),
      targetId: z.string().nullable(),
      data: Payload,
    }),
    z.object({
      kind: z.literal("step"),
      step: z.enum(POST_STEP_NAMES),
      occurredAt: z.string(),
      targetId: z.string().nullable(),
      detail: Payload,
    }),
  ])
  .openapi("PostHistoryEntry");

/** A history entry in the API's shape. */
export function historyEntryView(entry: HistoryEntry) {
  return { ...entry, occurredAt: toIso(entry.occurredAt) };
}

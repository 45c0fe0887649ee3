/**
 * What the publisher tells its users happened, and what it remembers of each post's run. Both
 * halves write them in the same transaction as the state change they report (the outbox): an
 * event exists exactly when its change committed. Webhooks deliver the events; `GET
 * /api/v1/events` and `GET /api/v1/posts/{id}/events` read them.
 */

/** The events a user can subscribe to (webhooks) or pull (`GET /api/v1/events`). */
export const PUBLISHER_EVENT_TYPES = [
  "post.scheduled",
  "post.publishing",
  "post.published",
  "post.partial",
  "post.failed",
  "post.cancelled",
  "post.rescheduled",
  "post.deleted",
  "target.published",
  "target.failed",
  "connection.reconnect_required",
  "webhook.endpoint_disabled",
] as const;

export type PublisherEventType = (typeof PUBLISHER_EVENT_TYPES)[number];

/** An event to record: whose, what, about which post or target, and its payload (no secrets). */
export type NewPublisherEvent = {
  accountId: string;
  type: PublisherEventType;
  postId?: string;
  targetId?: string;
  data: Record<string, unknown>;
};

/**
 * One step of a post's run, for its history (`GET /api/v1/posts/{id}/events`): finer than the
 * events (claimed by a worker, handle saved, chunk progress, lease lost, resumed, the platform's
 * answer, a retry and its delay, the outcome). Never a token or a secret.
 */
export type NewPostStep = {
  postId: string;
  targetId?: string;
  step: string;
  detail: Record<string, unknown>;
};

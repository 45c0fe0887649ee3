import type { Queryable } from "@app/db";
import type { PublisherEventType } from "../contracts/events.ts";
import type { PostCursor } from "../domain/cursor.ts";

/** Where a delivery stands. */
export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The most recent attempts listed with each delivery. */
export const ATTEMPTS_PER_DELIVERY = 20;

/** One attempt as recorded (webhook_attempts). */
export type AttemptEntry = {
  number: number;
  startedAt: Date;
  /** Null while in flight, or when its worker died before an answer. */
  finishedAt: Date | null;
  responseStatus: number | null;
  latencyMs: number | null;
  responseExcerpt: string | null;
  error: string | null;
  retryAt: Date | null;
};

/** A delivery with its most recent attempts, newest first. */
export type DeliveryEntry = {
  id: string;
  eventId: string;
  eventType: PublisherEventType | null;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date;
  deliveredAt: Date | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  createdMicros: number;
  log: AttemptEntry[];
};

/** A page of an endpoint's deliveries, newest first, after `after`; `next` when more follow. */
export async function listDeliveries(
  db: Queryable,
  input: { endpointId: string; status?: DeliveryStatus; limit: number; after?: PostCursor },
): Promise<{ deliveries: DeliveryEntry[]; next?: PostCursor }> {
  const rows = await db.query<Omit<DeliveryEntry, "log">>(
    `SELECT d.id, d.event_id AS "eventId", e.type AS "eventType", d.status, d.attempts,
       d.next_attempt_at AS "nextAttemptAt", d.delivered_at AS "deliveredAt",
       d.last_response_status AS "lastResponseStatus", d.last_error AS "lastError", d.created_at AS "createdAt",
       (extract(epoch FROM d.created_at) * 1000000)::int8 AS "createdMicros"
     FROM publisher.webhook_deliveries d LEFT JOIN publisher.events e ON e.id = d.event_id
     WHERE d.endpoint_id = $1 AND ($2::text IS NULL OR d.status = $2)
       AND ($3::int8 IS NULL OR (d.created_at, d.id) < (timestamptz 'epoch' + $3::int8 * interval '1 microsecond', $4))
     ORDER BY d.created_at DESC, d.id DESC LIMIT $5`,
    [
      input.endpointId,
      input.status ?? null,
      input.after?.createdMicros ?? null,
      input.after?.id ?? null,
      input.limit + 1,
    ],
  );
  const page = rows.slice(0, input.limit);
  const attempts = await db.query<AttemptEntry & { deliveryId: string }>(
    `SELECT a.delivery_id AS "deliveryId", a.number, a.started_at AS "startedAt", a.finished_at AS "finishedAt",
       a.response_status AS "responseStatus", a.latency_ms AS "latencyMs", a.response_excerpt AS "responseExcerpt",
       a.error, a.retry_at AS "retryAt"
     FROM publisher.webhook_attempts a
     WHERE a.delivery_id = ANY($1::text[])
       AND a.number > (SELECT d.attempts FROM publisher.webhook_deliveries d WHERE d.id = a.delivery_id) - $2
     ORDER BY a.delivery_id, a.number DESC`,
    [page.map((delivery) => delivery.id), ATTEMPTS_PER_DELIVERY],
  );
  const byDelivery = Map.groupBy(attempts, (attempt) => attempt.deliveryId);
  const deliveries = page.map((delivery) => ({
    ...delivery,
    log: (byDelivery.get(delivery.id) ?? []).map(({ deliveryId: _, ...attempt }) => attempt),
  }));
  const last = deliveries.at(-1);
  return rows.length > input.limit && last
    ? { deliveries, next: { createdMicros: last.createdMicros, id: last.id } }
    : { deliveries };
}

/** What a resend found: the delivery due now, none such, or one being sent at this moment. */
export type ResendResult = "queued" | "not-found" | "in-flight";

/**
 * Makes a delivery of the endpoint due at once. A pending one keeps its schedule (it is only
 * brought forward); a delivered or failed one gets one more attempt, with no schedule after it.
 * A delivery being sent right now (its lease running) is left alone: "in-flight".
 */
export async function resendDelivery(
  db: Queryable,
  input: { endpointId: string; deliveryId: string; now: Date },
): Promise<ResendResult> {
  const [row] = await db.query<{ queued: boolean }>(
    `WITH found AS (
       SELECT id, status, attempts, leased_until FROM publisher.webhook_deliveries
       WHERE id = $1 AND endpoint_id = $2 FOR UPDATE),
     queued AS (
       UPDATE publisher.webhook_deliveries d SET status = 'pending', next_attempt_at = $3, updated_at = $3,
         final_attempt = CASE WHEN found.status = 'pending' THEN d.final_attempt ELSE found.attempts + 1 END
       FROM found WHERE d.id = found.id AND (found.leased_until IS NULL OR found.leased_until <= $3)
       RETURNING d.id)
     SELECT EXISTS (SELECT 1 FROM queued) AS queued FROM found`,
    [input.deliveryId, input.endpointId, input.now],
  );
  if (!row) return "not-found";
  return row.queued ? "queued" : "in-flight";
}

import type { Database } from "@app/db";
import type { EventPosition } from "../domain/event-cursor.ts";
import { eventsAfter, sequenceEvents } from "../store/events.ts";

/**
 * One fan-out at a time across every process: a transaction-scoped advisory lock.
 */
const FAN_OUT_LOCK = "SELECT pg_try_advisory_xact_lock(hashtext('publisher.webhook_fanout')) AS locked";

/** What one fan-out did: the events read from the feed and the deliveries they made. */
export type FanOutResult = { events: number; deliveries: number } | "busy";

/**
 * Turns the next events of the outbox (in feed order, across accounts: `eventsAfter`) into one
 * delivery per (event, subscribed endpoint), due at once, and moves the fan-out's position past
 * them, in one transaction: an event is fanned out once, whichever process does it ("busy" when
 * another process is at it). An endpoint gets the events of its account whose type it lists (all
 * when it lists none) that happened since it was created, while it is enabled. The unique
 * (event, endpoint) pair makes a second delivery of the same event impossible. The events committed
 * since the last read are placed in the feed first, in their own transaction (`sequenceEvents`).
 * The endpoints are read `FOR KEY SHARE` (the lock each delivery's foreign key takes anyway, taken
 * as they are read): one being deleted meanwhile is waited for and left out, where a delivery made
 * for it would fail the whole batch once the deletion commits.
 */
export async function fanOutEvents(db: Database, input: { now: Date; batch: number }): Promise<FanOutResult> {
  await sequenceEvents(db);
  return db.transaction(async (tx) => {
    const [lock] = await tx.query<{ locked: boolean }>(FAN_OUT_LOCK);
    if (!lock?.locked) return "busy";
    const [fanout] = await tx.query<{ position: EventPosition }>(
      "SELECT last_position::text AS position FROM publisher.webhook_fanout WHERE id = 1",
    );
    const events = await eventsAfter(tx, fanout?.position, input.batch);
    const last = events.at(-1);
    if (!last) return { events: 0, deliveries: 0 };
    const made = await tx.query(
      `INSERT INTO publisher.webhook_deliveries
         (id, endpoint_id, event_id, status, next_attempt_at, created_at, updated_at)
       SELECT 'whd_' || replace(gen_random_uuid()::text, '-', ''), w.id, e.id, 'pending', $5, $5, $5
       FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) AS e(id, account_id, type, occurred_at)
       JOIN publisher.webhook_endpoints w ON w.account_id = e.account_id
       WHERE w.enabled AND (w.event_types IS NULL OR e.type = ANY(w.event_types))
         AND w.created_at <= e.occurred_at
       FOR KEY SHARE OF w
       ON CONFLICT (event_id, endpoint_id) DO NOTHING
       RETURNING 1`,
      [
        events.map((event) => event.id),
        events.map((event) => event.accountId),
        events.map((event) => event.type),
        events.map((event) => event.occurredAt.toISOString()),
        input.now,
      ],
    );
    await tx.query("UPDATE publisher.webhook_fanout SET last_position = $1::int8 WHERE id = 1", [
      last.position,
    ]);
    return { events: events.length, deliveries: made.length };
  });
}

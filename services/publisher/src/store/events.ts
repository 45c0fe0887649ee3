import { newId } from "@app/core";
import type { Database, Queryable } from "@app/db";
import type { NewPostStep, NewPublisherEvent, PublisherEventType } from "../contracts/events.ts";
import type { EventPosition } from "../domain/event-cursor.ts";
import type { PostStepName } from "../domain/post-steps.ts";

/** An event as stored, with its place in the feed. */
export type PublisherEvent = {
  id: string;
  accountId: string;
  type: PublisherEventType;
  postId: string | null;
  targetId: string | null;
  data: Record<string, unknown>;
  occurredAt: Date;
  position: EventPosition;
};

/** One entry of a post's history: one of its events, or a step of its run. */
export type HistoryEntry =
  | {
      kind: "event";
      id: string;
      type: PublisherEventType;
      targetId: string | null;
      data: Record<string, unknown>;
      occurredAt: Date;
    }
  | {
      kind: "step";
      step: PostStepName;
      targetId: string | null;
      detail: Record<string, unknown>;
      occurredAt: Date;
    };

/** The most entries a post's history answers with (oldest first); a longer one is cut. */
export const MAX_HISTORY_ENTRIES = 2_000;

/** The start of the feed: before every event. */
const START: EventPosition = "0";

/** The most events one sequencing step places in the feed (the rest wait for the next step). */
const SEQUENCE_BATCH = 5_000;

/**
 * One sequencer at a time across every process: a transaction-scoped advisory lock, held only
 * for the sequencer's own short transaction (migrations/027_feed_positions_and_refresh_leases.sql,
 * the feed's order).
 */
const SEQUENCER_LOCK = "SELECT pg_try_advisory_xact_lock(hashtext('publisher.event_sequencer')) AS locked";

/**
 * JSON that PostgreSQL's jsonb takes whatever a platform answered: a NUL (which jsonb refuses) and
 * a lone surrogate (not Unicode) in any string become U+FFFD. A refused payload would fail the
 * transaction of the state change it reports.
 */
function storableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === "string" ? item.replaceAll("\u0000", "\uFFFD").toWellFormed() : item,
  );
}

/**
 * Records events in the caller's transaction (the outbox: they commit with the change they
 * report, or not at all), in the order given; one statement. Returns their ids (`evt_…`).
 */
export async function appendEvents(
  tx: Queryable,
  events: readonly NewPublisherEvent[],
  at: Date,
): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((event) => ({
    id: newId("evt"),
    account_id: event.accountId,
    type: event.type,
    post_id: event.postId ?? null,
    target_id: event.targetId ?? null,
    data: event.data,
  }));
  await tx.query(
    `INSERT INTO publisher.events (id, account_id, type, post_id, target_id, data, occurred_at)
     SELECT e.id, e.account_id, e.type, e.post_id, e.target_id, e.data, $2
     FROM jsonb_to_recordset($1::jsonb)
       AS e(id text, account_id text, type text, post_id text, target_id text, data jsonb)`,
    [storableJson(rows), at],
  );
  return rows.map((row) => row.id);
}

/** Records one event in the caller's transaction (see {@link appendEvents}); returns its id. */
export async function appendEvent(tx: Queryable, event: NewPublisherEvent, at: Date): Promise<string> {
  const [id] = await appendEvents(tx, [event], at);
  return id as string;
}

/** Records steps of posts' runs, in the order given, in the caller's transaction; one statement. */
export async function appendPostSteps(tx: Queryable, steps: readonly NewPostStep[], at: Date): Promise<void> {
  if (steps.length === 0) return;
  const rows = steps.map((step) => ({
    post_id: step.postId,
    target_id: step.targetId ?? null,
    step: step.step,
    detail: step.detail,
  }));
  await tx.query(
    `INSERT INTO publisher.post_steps (post_id, target_id, step, detail, occurred_at)
     SELECT s.post_id, s.target_id, s.step, s.detail, $2
     FROM jsonb_to_recordset($1::jsonb) AS s(post_id text, target_id text, step text, detail jsonb)`,
    [storableJson(rows), at],
  );
}

/** Records one step of a post's run in the caller's transaction. */
export async function appendPostStep(tx: Queryable, step: NewPostStep, at: Date): Promise<void> {
  await appendPostSteps(tx, [step], at);
}

/** The columns of a read event (ordering by `e.position`, the number: this `position` is its text). */
const EVENT_COLUMNS = `e.position::text AS position, id, account_id AS "accountId", type, post_id AS "postId",
  target_id AS "targetId", data, occurred_at AS "occurredAt"`;

/**
 * Places the events committed since the last step in the feed: gives each event not yet placed
 * that this step can see (its transaction committed) the next position, in the order they were
 * written (seq), in one short transaction of its own under the sequencer's lock (see
 * migrations/027_feed_positions_and_refresh_leases.sql). A later commit thus always gets a later
 * position than every event already readable: a reader paging by position never skips nor repeats
 * one, and no other transaction, however long, holds the feed back. Cheap when nothing waits (one
 * indexed read). Returns the events placed; 0 as well when another process is placing them right
 * now (they show at the next read).
 */
export async function sequenceEvents(db: Database): Promise<number> {
  const [waiting] = await db.query<{ waiting: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM publisher.events WHERE position IS NULL) AS waiting",
  );
  if (!waiting?.waiting) return 0;
  return db.transaction(async (tx) => {
    const [lock] = await tx.query<{ locked: boolean }>(SEQUENCER_LOCK);
    if (!lock?.locked) return 0;
    // A new statement, so a new snapshot: it sees every position the previous holder committed.
    const placed = await tx.query(
      `UPDATE publisher.events e
       SET position = (SELECT coalesce(max(position), 0) FROM publisher.events) + waiting.n
       FROM (SELECT seq, row_number() OVER (ORDER BY seq) AS n
             FROM (SELECT seq FROM publisher.events WHERE position IS NULL ORDER BY seq LIMIT $1) AS first
            ) AS waiting
       WHERE e.seq = waiting.seq
       RETURNING 1`,
      [SEQUENCE_BATCH],
    );
    return placed.length;
  });
}

/**
 * A page of the account's events after `after` (from the start without it), in feed order; `more`
 * when further events can be read at once. Places the events committed since the last read first
 * ({@link sequenceEvents}), so an event shows as soon as its transaction committed.
 */
export async function listEvents(
  db: Database,
  input: { accountId: string; after?: EventPosition; limit: number },
): Promise<{ events: PublisherEvent[]; more: boolean }> {
  await sequenceEvents(db);
  const rows = await db.query<PublisherEvent>(
    `SELECT ${EVENT_COLUMNS} FROM publisher.events e
     WHERE account_id = $1 AND e.position > $2::int8
     ORDER BY e.position LIMIT $3`,
    [input.accountId, input.after ?? START, input.limit + 1],
  );
  return { events: rows.slice(0, input.limit), more: rows.length > input.limit };
}

/**
 * Up to `limit` events of every account after `after` (from the start without it), in feed
 * order: what a fan-out (the webhooks) reads, keeping the last event's `position` as where it
 * stands. Reads only events already placed in the feed: run {@link sequenceEvents} first (in its
 * own transaction, not the reader's). Never skips an event committed later, nor repeats one.
 */
export async function eventsAfter(
  db: Queryable,
  after: EventPosition | undefined,
  limit: number,
): Promise<PublisherEvent[]> {
  return db.query<PublisherEvent>(
    `SELECT ${EVENT_COLUMNS} FROM publisher.events e
     WHERE e.position > $1::int8
     ORDER BY e.position LIMIT $2`,
    [after ?? START, limit],
  );
}

/**
 * The history of one of the account's posts, oldest first: its events and the steps of its run,
 * in the order they were written (at most {@link MAX_HISTORY_ENTRIES}, `truncated` beyond).
 * Undefined when the account has no such post.
 */
export async function postHistory(
  db: Queryable,
  accountId: string,
  postId: string,
): Promise<{ entries: HistoryEntry[]; truncated: boolean } | undefined> {
  const [post] = await db.query("SELECT 1 FROM publisher.posts WHERE account_id = $1 AND id = $2", [
    accountId,
    postId,
  ]);
  if (!post) return undefined;
  const rows = await db.query<{
    kind: "event" | "step";
    id: string | null;
    name: string;
    targetId: string | null;
    body: Record<string, unknown>;
    occurredAt: Date;
  }>(
    `SELECT kind, id, name, "targetId", body, "occurredAt" FROM (
       SELECT 'event' AS kind, seq, id, type AS name, target_id AS "targetId", data AS body,
         occurred_at AS "occurredAt"
       FROM publisher.events WHERE post_id = $1
       UNION ALL
       SELECT 'step', seq, NULL, step, target_id, detail, occurred_at
       FROM publisher.post_steps WHERE post_id = $1) AS history
     ORDER BY seq LIMIT $2`,
    [postId, MAX_HISTORY_ENTRIES + 1],
  );
  const entries = rows.slice(0, MAX_HISTORY_ENTRIES).map(
    (row): HistoryEntry =>
      row.kind === "event"
        ? {
            kind: "event",
            id: row.id as string,
            type: row.name as PublisherEventType,
            targetId: row.targetId,
            data: row.body,
            occurredAt: row.occurredAt,
          }
        : {
            kind: "step",
            step: row.name as PostStepName,
            targetId: row.targetId,
            detail: row.body,
            occurredAt: row.occurredAt,
          },
  );
  return { entries, truncated: rows.length > MAX_HISTORY_ENTRIES };
}

import { newId } from "@app/core";
import type { Queryable } from "@app/db";
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
const START: EventPosition = { xid: "0", seq: 0 };

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

type EventRow = Omit<PublisherEvent, "position"> & { xid: string; seq: number };

const EVENT_COLUMNS = `seq, xid::text AS xid, id, account_id AS "accountId", type, post_id AS "postId",
  target_id AS "targetId", data, occurred_at AS "occurredAt"`;

/**
 * Only events of transactions older than every one still running: any event committed later has
 * a larger xid than those read, so paging by (xid, seq) never skips one (migrations/023_events.sql).
 */
const SETTLED = "xid < (SELECT pg_snapshot_xmin(pg_current_snapshot()))";

const toEvent = ({ xid, seq, ...event }: EventRow): PublisherEvent => ({ ...event, position: { xid, seq } });

/**
 * A page of the account's events after `after` (from the start without it), in feed order; `more`
 * when further events can be read at once.
 */
export async function listEvents(
  db: Queryable,
  input: { accountId: string; after?: EventPosition; limit: number },
): Promise<{ events: PublisherEvent[]; more: boolean }> {
  const after = input.after ?? START;
  const rows = await db.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM publisher.events
     WHERE account_id = $1 AND (xid, seq) > ($2::xid8, $3::int8) AND ${SETTLED}
     ORDER BY xid, seq LIMIT $4`,
    [input.accountId, after.xid, after.seq, input.limit + 1],
  );
  return { events: rows.slice(0, input.limit).map(toEvent), more: rows.length > input.limit };
}

/**
 * Up to `limit` events of every account after `after` (from the start without it), in feed
 * order: what a fan-out (the webhooks) reads, keeping the last event's `position` as where it
 * stands. Never skips an event committed later, nor repeats one. Read in a transaction that has
 * written or locked a row (and so has an id), it sees only events of transactions older than its
 * own: the others come with the next read.
 */
export async function eventsAfter(
  db: Queryable,
  after: EventPosition | undefined,
  limit: number,
): Promise<PublisherEvent[]> {
  const from = after ?? START;
  const rows = await db.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM publisher.events
     WHERE (xid, seq) > ($1::xid8, $2::int8) AND ${SETTLED}
     ORDER BY xid, seq LIMIT $3`,
    [from.xid, from.seq, limit],
  );
  return rows.map(toEvent);
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

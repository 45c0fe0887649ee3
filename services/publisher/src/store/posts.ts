import { newId, toIso } from "@app/core";
import type { Queryable } from "@app/db";
import type { Platform, PostContent, PostStatus, TargetOutcome } from "../contracts/post.ts";
import type { PostCursor } from "../domain/cursor.ts";
import { DEFAULT_QUEUE_SETTINGS, type QueueSettings } from "../domain/queue-slots.ts";
import { appendEvent } from "./events.ts";

/** A post as stored, with its place in the listing order (`createdMicros`). */
export type PostRecord = {
  id: string;
  status: PostStatus;
  content: PostContent;
  connectionIds: string[];
  platforms: Platform[];
  scheduledFor: Date | null;
  createdAt: Date;
  createdMicros: number;
};

export type NewPost = {
  accountId: string;
  content: PostContent;
  targets: ReadonlyArray<{ connectionId: string; platform: Platform }>;
  /** Shown as the post's `scheduled_for`: null for publish-now. */
  scheduledFor: Date | null;
  /** When the targets become due (now for publish-now). */
  dueAt: Date;
  now: Date;
};

const POST_COLUMNS = `id, status, content, connection_ids AS "connectionIds", platforms,
  scheduled_for AS "scheduledFor", created_at AS "createdAt",
  (extract(epoch FROM created_at) * 1000000)::int8 AS "createdMicros"`;

/**
 * Writes a post (status `scheduled`) and one `post_targets` row per connection, each `scheduled`
 * with `due_at` = `next_attempt_at` = `dueAt`, and its `post.scheduled` event (publish-now posts
 * too, due at once). Run it in the caller's transaction.
 */
export async function insertPost(tx: Queryable, post: NewPost): Promise<string> {
  const id = newId("post");
  const platforms = [...new Set(post.targets.map((t) => t.platform))];
  await tx.query(
    `INSERT INTO publisher.posts (id, account_id, status, content, connection_ids, platforms, scheduled_for, created_at, updated_at)
     VALUES ($1, $2, 'scheduled', $3, $4, $5, $6, $7, $7)`,
    [
      id,
      post.accountId,
      JSON.stringify(post.content),
      post.targets.map((t) => t.connectionId),
      platforms,
      post.scheduledFor,
      post.now,
    ],
  );
  const targets = post.targets.map((target) => ({ ...target, id: newId("tgt") }));
  for (const target of targets) {
    await tx.query(
      `INSERT INTO publisher.post_targets (id, post_id, connection_id, platform, status, due_at, next_attempt_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'scheduled', $5, $5, $6, $6)`,
      [target.id, id, target.connectionId, target.platform, post.dueAt, post.now],
    );
  }
  await appendEvent(
    tx,
    {
      accountId: post.accountId,
      type: "post.scheduled",
      postId: id,
      data: {
        postId: id,
        status: "scheduled",
        scheduledFor: post.scheduledFor ? toIso(post.scheduledFor) : null,
        dueAt: toIso(post.dueAt),
        platforms,
        targets: targets.map((t) => ({ targetId: t.id, connectionId: t.connectionId, platform: t.platform })),
      },
    },
    post.now,
  );
  return id;
}

/** Serialises queue placement per account until the transaction ends (every instance honours it). */
export async function lockAccountQueue(tx: Queryable, accountId: string): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('publisher.queue:' || $1))", [accountId]);
}

/**
 * Which of the instants `at` a scheduled, publishing or published post of the account already
 * occupies for one of `connectionIds` (epoch ms): the queue slots those connections have taken.
 * Asked for the candidate slots only, so the answer is a handful of rows however full the queue.
 */
export async function takenSlots(
  tx: Queryable,
  input: { accountId: string; connectionIds: readonly string[]; at: readonly Date[] },
): Promise<Set<number>> {
  if (input.at.length === 0) return new Set();
  const rows = await tx.query<{ at: Date }>(
    `SELECT DISTINCT scheduled_for AS at FROM publisher.posts
     WHERE account_id = $1 AND scheduled_for = ANY($3::timestamptz[])
       AND status IN ('scheduled', 'publishing', 'published') AND connection_ids && $2::text[]`,
    [input.accountId, input.connectionIds, input.at],
  );
  return new Set(rows.map((row) => row.at.getTime()));
}

/**
 * Takes the account's queue lock (as {@link lockAccountQueue}) and reads its smart schedule, in
 * one statement: one round trip fewer for `POST /api/v1/queue`. The schedule is not what the lock
 * guards (the posts are), so reading it in the same statement is fine; the posts are asked about
 * in a later statement, whose snapshot is taken once the lock is held and so sees the previous
 * holder's post. Prepared once per PostgreSQL connection (a key lookup: one plan fits every value).
 */
export async function lockQueueReadSettings(tx: Queryable, accountId: string): Promise<QueueSettings> {
  const [row] = await tx.query<{
    postsPerDay: 1 | 2 | 3 | null;
    allowedDays: number[] | null;
    timeZone: string | null;
  }>(
    `SELECT a.posts_per_day AS "postsPerDay", a.allowed_days AS "allowedDays", a.time_zone AS "timeZone"
     FROM (SELECT pg_advisory_xact_lock(hashtext('publisher.queue:' || $1::text))) AS locked
     LEFT JOIN publisher.accounts a ON a.id = $1::text`,
    [accountId],
    { prepareAs: "publisher_queue_lock" },
  );
  if (!row?.postsPerDay || !row.allowedDays || !row.timeZone) return DEFAULT_QUEUE_SETTINGS;
  return { postsPerDay: row.postsPerDay, allowedDays: row.allowedDays, timeZone: row.timeZone };
}

/**
 * The first of the instants `at` (in their order) that no scheduled, publishing or published post
 * of the account occupies for one of `connectionIds`; undefined when all are taken. One statement:
 * an anti-join of the candidates against the `(account_id, scheduled_for)` index, probed once per
 * candidate and stopped at the first free one (no scan of the account's posts, however many).
 * Prepared once per PostgreSQL connection: the plan is that probe whatever the values, and half the
 * statement's time was its parse and plan.
 */
export async function firstFreeSlot(
  tx: Queryable,
  input: { accountId: string; connectionIds: readonly string[]; at: readonly Date[] },
): Promise<Date | undefined> {
  if (input.at.length === 0) return undefined;
  // The instants go as epoch milliseconds: a number is far cheaper to send than a Date's text.
  const [row] = await tx.query<{ at: Date }>(
    `SELECT c.at
     FROM unnest($3::int8[]) WITH ORDINALITY AS u(ms, n),
       LATERAL (SELECT timestamptz 'epoch' + u.ms * interval '1 millisecond' AS at) AS c
     WHERE NOT EXISTS (
       SELECT 1 FROM publisher.posts p
       WHERE p.account_id = $1::text AND p.scheduled_for = c.at
         AND p.status IN ('scheduled', 'publishing', 'published') AND p.connection_ids && $2::text[])
     ORDER BY u.n LIMIT 1`,
    [input.accountId, input.connectionIds, input.at.map((instant) => instant.getTime())],
    { prepareAs: "publisher_first_free_slot" },
  );
  return row?.at;
}

/** A page of the account's posts, newest first, after `after`; `next` when more follow. */
export async function listPosts(
  db: Queryable,
  input: { accountId: string; status?: PostStatus; limit: number; after?: PostCursor },
): Promise<{ posts: PostRecord[]; next?: PostCursor }> {
  const rows = await db.query<PostRecord>(
    `SELECT ${POST_COLUMNS} FROM publisher.posts
     WHERE account_id = $1 AND ($2::text IS NULL OR status = $2)
       AND ($3::int8 IS NULL OR (created_at, id) < (timestamptz 'epoch' + $3::int8 * interval '1 microsecond', $4))
     ORDER BY created_at DESC, id DESC LIMIT $5`,
    [
      input.accountId,
      input.status ?? null,
      input.after?.createdMicros ?? null,
      input.after?.id ?? null,
      input.limit + 1,
    ],
  );
  const posts = rows.slice(0, input.limit);
  const last = posts.at(-1);
  return rows.length > input.limit && last
    ? { posts, next: { createdMicros: last.createdMicros, id: last.id } }
    : { posts };
}

/** One of the account's posts, or undefined. */
export async function findPost(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<PostRecord | undefined> {
  const [post] = await db.query<PostRecord>(
    `SELECT ${POST_COLUMNS} FROM publisher.posts WHERE account_id = $1 AND id = $2`,
    [accountId, id],
  );
  return post;
}

/** Each target's outcome so far, in the order of the post's connections. */
export async function targetOutcomes(db: Queryable, postId: string): Promise<TargetOutcome[]> {
  return db.query<TargetOutcome>(
    `SELECT t.connection_id AS "connectionId", t.platform, t.status, t.platform_post_id AS "platformPostId",
            t.url, t.error, t.attempts, t.deleted_at AS "deletedAt"
     FROM publisher.post_targets t JOIN publisher.posts p ON p.id = t.post_id
     WHERE t.post_id = $1 ORDER BY array_position(p.connection_ids, t.connection_id)`,
    [postId],
  );
}

/** After a cancel: the post is a draft again, with no schedule. */
export async function returnToDraft(db: Queryable, postId: string, now: Date): Promise<void> {
  await db.query(
    "UPDATE publisher.posts SET status = 'draft', scheduled_for = NULL, updated_at = $2 WHERE id = $1",
    [postId, now],
  );
}

import { newId, toIso } from "@app/core";
import type { Database, Queryable } from "@app/db";
import type { Platform, PostContent, PostStatus } from "../contracts/post.ts";
import type { EditedPart } from "../domain/post-edit.ts";
import { appendEvent, appendPostStep } from "./events.ts";

/**
 * The post as an edit was checked against (read before its checks ran, outside any transaction):
 * the edit is written only if the post is still exactly this when its transaction locks it.
 */
export type EditBase = { content: PostContent; connectionIds: readonly string[]; scheduledFor: Date | null };

/** A checked edit of a scheduled post: the post as it is to be. */
export type PostChange = {
  accountId: string;
  postId: string;
  /** What the edit named (recorded in the post's history). */
  parts: readonly EditedPart[];
  base: EditBase;
  content: PostContent;
  targets: ReadonlyArray<{ connectionId: string; platform: Platform }>;
  /** The post's `scheduled_for` after the edit (unchanged unless the edit moved it). */
  scheduledFor: Date | null;
  now: Date;
};

/** How an edit ended: written, or why nothing was. */
export type EditOutcome =
  | { kind: "applied" }
  | { kind: "not_found" }
  /** The post is a draft (cancelled): there is no schedule to edit. */
  | { kind: "not_scheduled"; status: PostStatus }
  /** A worker has claimed one of its targets, one kept platform state from a run, or publishing is over: too late to edit. */
  | { kind: "started"; status: PostStatus }
  /** Another edit (or a cancel) changed the post after this one was checked. */
  | { kind: "changed" };

type LockedPost = { status: PostStatus; unchanged: boolean; scheduledFor: Date | null };
type LockedTarget = { id: string; connectionId: string; platform: Platform; started: boolean; dueAt: Date };

/**
 * Writes a checked edit of a scheduled post, all of it or nothing, in one transaction that locks
 * the post (`FOR NO KEY UPDATE`, see targets.ts) and then its targets (`FOR UPDATE`), the order
 * settlements and cancels take: every target must still be `scheduled` and unclaimed, and the post as the edit was checked against.
 * A worker's claim takes targets with `FOR UPDATE SKIP LOCKED`, so it either claimed one before
 * (this edit then finds it claimed, writes nothing and answers `started`) or passes them over
 * until the edit commits (and then runs the edited post). Targets of connections no longer named
 * are deleted (never claimed, nothing of them exists elsewhere), new ones are added, and all are
 * due at the new `scheduledFor` when it moved, which records `post.rescheduled`; the post's history
 * gets an `edited` step.
 */
export async function applyPostEdit(db: Database, change: PostChange): Promise<EditOutcome> {
  return db.transaction(async (tx) => {
    const post = await lockPost(tx, change);
    if (!post) return { kind: "not_found" };
    if (post.status === "draft") return { kind: "not_scheduled", status: post.status };
    if (post.status !== "scheduled") return { kind: "started", status: post.status };
    const targets = await lockTargets(tx, change.postId);
    if (targets.some((target) => target.started)) return { kind: "started", status: "publishing" };
    if (!post.unchanged) return { kind: "changed" };
    const rescheduled = change.scheduledFor?.getTime() !== post.scheduledFor?.getTime();
    const dueAt = change.scheduledFor ?? targets[0]?.dueAt ?? change.now;
    const kept = await writeTargets(tx, change, targets, rescheduled ? dueAt : undefined, dueAt);
    await tx.query(
      `UPDATE publisher.posts SET content = $2::jsonb, connection_ids = $3::text[], platforms = $4::text[],
         scheduled_for = $5, updated_at = $6
       WHERE id = $1`,
      [
        change.postId,
        JSON.stringify(change.content),
        change.targets.map((target) => target.connectionId),
        platformsOf(change.targets),
        change.scheduledFor,
        change.now,
      ],
    );
    if (rescheduled) await recordRescheduled(tx, change, post.scheduledFor, dueAt, kept);
    await recordEdited(tx, change, post.scheduledFor, targets);
    return { kind: "applied" };
  });
}

const platformsOf = (targets: PostChange["targets"]) => [
  ...new Set(targets.map((target) => target.platform)),
];

/** The account's post, locked, with whether it is still what the edit was checked against. */
async function lockPost(tx: Queryable, change: PostChange): Promise<LockedPost | undefined> {
  const [post] = await tx.query<LockedPost>(
    `SELECT status, scheduled_for AS "scheduledFor",
       (content = $3::jsonb AND connection_ids = $4::text[] AND scheduled_for IS NOT DISTINCT FROM $5::timestamptz)
         AS unchanged
     FROM publisher.posts WHERE id = $1 AND account_id = $2 FOR NO KEY UPDATE`,
    [
      change.postId,
      change.accountId,
      JSON.stringify(change.base.content),
      [...change.base.connectionIds],
      change.base.scheduledFor,
    ],
  );
  return post;
}

/**
 * The post's targets, locked, each with whether it has started: a worker has had it (claimed, or
 * past `scheduled`), or it keeps platform state from an earlier run (a retried target whose copy
 * may exist on the platform: editing it away would leave that copy untracked).
 */
async function lockTargets(tx: Queryable, postId: string): Promise<LockedTarget[]> {
  return tx.query<LockedTarget>(
    `SELECT id, connection_id AS "connectionId", platform, due_at AS "dueAt",
       (status <> 'scheduled' OR claimed_by IS NOT NULL OR platform_handle IS NOT NULL) AS started
     FROM publisher.post_targets WHERE post_id = $1 ORDER BY id FOR UPDATE`,
    [postId],
  );
}

/**
 * The targets as the edit names them: those of dropped connections deleted, the kept ones moved
 * to `moveTo` when given, new ones added due at `dueAt`. Returns every target of the post after it.
 */
async function writeTargets(
  tx: Queryable,
  change: PostChange,
  existing: readonly LockedTarget[],
  moveTo: Date | undefined,
  dueAt: Date,
): Promise<Array<{ id: string; connectionId: string; platform: Platform }>> {
  const wanted = new Set(change.targets.map((target) => target.connectionId));
  const dropped = existing.filter((target) => !wanted.has(target.connectionId)).map((target) => target.id);
  if (dropped.length > 0) {
    await tx.query("DELETE FROM publisher.post_targets WHERE id = ANY($1::text[])", [dropped]);
  }
  if (moveTo) {
    await tx.query(
      `UPDATE publisher.post_targets SET due_at = $2, next_attempt_at = $2, updated_at = $3
       WHERE post_id = $1`,
      [change.postId, moveTo, change.now],
    );
  }
  const byConnection = new Map(existing.map((target) => [target.connectionId, target]));
  const after: Array<{ id: string; connectionId: string; platform: Platform }> = [];
  for (const target of change.targets) {
    const found = byConnection.get(target.connectionId);
    if (found) {
      after.push({ id: found.id, connectionId: found.connectionId, platform: found.platform });
      continue;
    }
    const id = newId("tgt");
    await tx.query(
      `INSERT INTO publisher.post_targets (id, post_id, connection_id, platform, status, due_at, next_attempt_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'scheduled', $5, $5, $6, $6)`,
      [id, change.postId, target.connectionId, target.platform, dueAt, change.now],
    );
    after.push({ id, ...target });
  }
  return after;
}

/** `post.rescheduled`, in the edit's transaction: when it was due, when it is now, and its targets. */
async function recordRescheduled(
  tx: Queryable,
  change: PostChange,
  previous: Date | null,
  dueAt: Date,
  targets: ReadonlyArray<{ id: string; connectionId: string; platform: Platform }>,
): Promise<void> {
  await appendEvent(
    tx,
    {
      accountId: change.accountId,
      type: "post.rescheduled",
      postId: change.postId,
      data: {
        postId: change.postId,
        status: "scheduled",
        scheduledFor: change.scheduledFor ? toIso(change.scheduledFor) : null,
        previousScheduledFor: previous ? toIso(previous) : null,
        dueAt: toIso(dueAt),
        platforms: platformsOf(change.targets),
        targets: targets.map((t) => ({ targetId: t.id, connectionId: t.connectionId, platform: t.platform })),
      },
    },
    change.now,
  );
}

/** The `edited` step of the post's history: what the edit named, the schedule's move, the targets' change. */
async function recordEdited(
  tx: Queryable,
  change: PostChange,
  previous: Date | null,
  before: readonly LockedTarget[],
): Promise<void> {
  const had = new Set(before.map((target) => target.connectionId));
  const has = new Set(change.targets.map((target) => target.connectionId));
  const iso = (date: Date | null) => (date ? toIso(date) : null);
  await appendPostStep(
    tx,
    {
      postId: change.postId,
      step: "edited",
      detail: {
        parts: [...change.parts],
        ...(change.parts.includes("scheduledFor")
          ? { scheduledFor: { from: iso(previous), to: iso(change.scheduledFor) } }
          : {}),
        ...(change.parts.includes("targets")
          ? {
              targets: {
                added: [...has].filter((id) => !had.has(id)),
                removed: [...had].filter((id) => !has.has(id)),
              },
            }
          : {}),
      },
    },
    change.now,
  );
}

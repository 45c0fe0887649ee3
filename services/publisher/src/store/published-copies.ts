import type { Database, Queryable } from "@app/db";
import type { Platform, TargetStatus } from "../contracts/post.ts";
import type { CopyKeptCode } from "../contracts/publishing.ts";
import { appendEvent, appendPostSteps } from "./events.ts";

/** A target as deleting its published copy sees it. */
export type CopyTarget = {
  id: string;
  connectionId: string;
  platform: Platform;
  status: TargetStatus;
  platformPostId: string | null;
  /** When its copy was removed from the platform (or found gone), if it was. */
  deletedAt: Date | null;
};

/** A copy removed from its platform just now. */
export type RemovedCopy = { target: CopyTarget; alreadyGone: boolean };

/** A copy that stays on its platform, and why. */
export type KeptCopy = { target: CopyTarget; code: CopyKeptCode; reason: string };

/** Every target of the post, in the order of the post's connections. */
export function copyTargets(db: Queryable, postId: string): Promise<CopyTarget[]> {
  return db.query<CopyTarget>(
    `SELECT t.id, t.connection_id AS "connectionId", t.platform, t.status,
       t.platform_post_id AS "platformPostId", t.deleted_at AS "deletedAt"
     FROM publisher.post_targets t JOIN publisher.posts p ON p.id = t.post_id
     WHERE t.post_id = $1 ORDER BY array_position(p.connection_ids, t.connection_id)`,
    [postId],
  );
}

/**
 * Records that published copies were removed from their platforms, in one transaction that locks
 * the post first: each target's `deleted_at` is set unless another request set it first (the
 * update is conditional), with a `deleted_on_platform` step each and one `post.deleted` event
 * listing what was removed and what stays (`kept`). Nothing is written when no copy is newly
 * marked. Returns when each target's copy counts as removed (`deleted_at`, new or earlier).
 */
export async function recordCopiesDeleted(
  db: Database,
  input: {
    postId: string;
    accountId: string;
    removed: readonly RemovedCopy[];
    kept: readonly KeptCopy[];
    now: Date;
  },
): Promise<Map<string, Date>> {
  const { postId, now } = input;
  if (input.removed.length === 0) return new Map();
  return db.transaction(async (tx) => {
    await tx.query("SELECT id FROM publisher.posts WHERE id = $1 FOR NO KEY UPDATE", [postId]);
    const marked = await tx.query<{ id: string }>(
      `UPDATE publisher.post_targets SET deleted_at = $3, updated_at = $3
       WHERE post_id = $1 AND id = ANY($2::text[]) AND status = 'published' AND deleted_at IS NULL
       RETURNING id`,
      [postId, input.removed.map((copy) => copy.target.id), now],
    );
    const fresh = new Set(marked.map((row) => row.id));
    const removed = input.removed.filter((copy) => fresh.has(copy.target.id));
    if (removed.length > 0) await recordRemoval(tx, { ...input, removed });
    const rows = await tx.query<{ id: string; deletedAt: Date }>(
      `SELECT id, deleted_at AS "deletedAt" FROM publisher.post_targets
       WHERE id = ANY($1::text[]) AND deleted_at IS NOT NULL`,
      [input.removed.map((copy) => copy.target.id)],
    );
    return new Map(rows.map((row) => [row.id, row.deletedAt]));
  });
}

/** The removal's steps and its `post.deleted` event, in the caller's transaction. */
async function recordRemoval(
  tx: Queryable,
  input: {
    postId: string;
    accountId: string;
    removed: readonly RemovedCopy[];
    kept: readonly KeptCopy[];
    now: Date;
  },
): Promise<void> {
  const describe = ({ target }: { target: CopyTarget }) => ({
    targetId: target.id,
    connectionId: target.connectionId,
    platform: target.platform,
    platformPostId: target.platformPostId,
  });
  await appendPostSteps(
    tx,
    input.removed.map((copy) => ({
      postId: input.postId,
      targetId: copy.target.id,
      step: "deleted_on_platform",
      detail: { platformPostId: copy.target.platformPostId, alreadyGone: copy.alreadyGone },
    })),
    input.now,
  );
  await appendEvent(
    tx,
    {
      accountId: input.accountId,
      type: "post.deleted",
      postId: input.postId,
      data: {
        postId: input.postId,
        deleted: input.removed.map((copy) => ({ ...describe(copy), alreadyGone: copy.alreadyGone })),
        kept: input.kept.map((copy) => ({ ...describe(copy), code: copy.code, reason: copy.reason })),
      },
    },
    input.now,
  );
}

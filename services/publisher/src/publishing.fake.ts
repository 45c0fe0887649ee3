import type { Queryable } from "@app/db";
import type { TargetOutcome } from "./contracts/post.ts";
import type { Publishing } from "./contracts/publishing.ts";
import { derivePostStatus } from "./domain/post-status.ts";
import { targetOutcomes } from "./store/posts.ts";

/** What the fake does with one due target: publish it (with this id), fail it, or leave it running. */
export type FakeOutcome =
  | { status: "published"; platformPostId: string; url?: string }
  | { status: "failed"; error: string }
  | { status: "publishing" };

export type FakePublishing = Publishing & {
  /** Every call, in order, for assertions. */
  readonly calls: Array<{ method: "publishNow" | "cancel"; postId: string; timeoutMs?: number }>;
};

/**
 * A stand-in for the publishing half, for tests and local wiring before the real one: publish-now
 * settles each scheduled target at once as `decide` says (published by default) and stores the
 * outcome and the post's derived status; cancel cancels unclaimed scheduled targets.
 * Never used in production.
 */
export function createFakePublishing(
  db: Queryable,
  decide: (target: { connectionId: string; platform: string }) => FakeOutcome = (target) => ({
    status: "published",
    platformPostId: `fake-${target.platform}-${target.connectionId}`,
  }),
): FakePublishing {
  const calls: FakePublishing["calls"] = [];

  async function refreshPostStatus(postId: string): Promise<TargetOutcome[]> {
    const outcomes = await targetOutcomes(db, postId);
    await db.query("UPDATE publisher.posts SET status = $2, updated_at = now() WHERE id = $1", [
      postId,
      derivePostStatus(outcomes.map((o) => o.status)),
    ]);
    return outcomes;
  }

  return {
    calls,
    async publishNow(postId, timeoutMs) {
      calls.push({ method: "publishNow", postId, timeoutMs });
      const due = await db.query<{ id: string; connectionId: string; platform: string }>(
        `SELECT id, connection_id AS "connectionId", platform FROM publisher.post_targets
         WHERE post_id = $1 AND status = 'scheduled'`,
        [postId],
      );
      for (const target of due) {
        const outcome = decide(target);
        await db.query(
          `UPDATE publisher.post_targets SET status = $2, attempts = attempts + 1, platform_post_id = $3, url = $4,
             error = $5, updated_at = now() WHERE id = $1`,
          [
            target.id,
            outcome.status,
            outcome.status === "published" ? outcome.platformPostId : null,
            outcome.status === "published" ? (outcome.url ?? null) : null,
            outcome.status === "failed" ? outcome.error : null,
          ],
        );
      }
      return refreshPostStatus(postId);
    },
    async cancel(postId) {
      calls.push({ method: "cancel", postId });
      const started = await db.query(
        `SELECT id FROM publisher.post_targets WHERE post_id = $1 AND (status <> 'scheduled' OR claimed_by IS NOT NULL)
           AND status <> 'canceled'`,
        [postId],
      );
      if (started.length > 0) return false;
      const canceled = await db.query(
        `UPDATE publisher.post_targets SET status = 'canceled', updated_at = now()
         WHERE post_id = $1 AND status = 'scheduled' AND claimed_by IS NULL RETURNING id`,
        [postId],
      );
      return canceled.length > 0;
    },
  };
}

import type { Database } from "@app/db";
import type { Platform } from "./contracts/post.ts";
import type { CopyRemoval, PublishedCopy, Publishing } from "./contracts/publishing.ts";
import { platformWithoutDelete } from "./domain/copy-removal.ts";
import { targetOutcomes } from "./store/posts.ts";
import { recordSettlement } from "./store/run-history.ts";
import { cancelScheduledPost, rederivePostStatus } from "./store/targets.ts";

/** What the fake does with one due target: publish it (with this id), fail it, or leave it running. */
export type FakeOutcome =
  | { status: "published"; platformPostId: string; url?: string }
  | { status: "failed"; error: string }
  | { status: "publishing" };

export type FakePublishing = Publishing & {
  /** Every call, in order, for assertions. */
  readonly calls: Array<
    | { method: "publishNow" | "cancel"; postId: string; timeoutMs?: number }
    | { method: "removePublished"; copy: PublishedCopy }
  >;
};

/** The worker id the fake's settlements are recorded under in the posts' history. */
export const FAKE_WORKER_ID = "fake-publishing";

/**
 * A stand-in for the publishing half, for tests and local wiring before the real one: publish-now
 * settles each scheduled target at once as `decide` says (published by default) and stores the
 * outcome and the post's derived status, with their events, in one transaction; cancel is the
 * real one (unclaimed scheduled targets only); removing a published copy answers as `remove`
 * says (deleted, except on TikTok, which has no delete). Never used in production.
 */
export function createFakePublishing(
  db: Database,
  decide: (target: { connectionId: string; platform: string }) => FakeOutcome = (target) => ({
    status: "published",
    platformPostId: `fake-${target.platform}-${target.connectionId}`,
  }),
  remove: (copy: PublishedCopy) => CopyRemoval = (copy) =>
    platformWithoutDelete(copy.platform) ?? { deleted: true, alreadyGone: false },
): FakePublishing {
  const calls: FakePublishing["calls"] = [];

  return {
    calls,
    async publishNow(postId, timeoutMs) {
      calls.push({ method: "publishNow", postId, timeoutMs });
      const now = new Date();
      await db.transaction(async (tx) => {
        const due = await tx.query<{
          id: string;
          connectionId: string;
          platform: Platform;
          attempts: number;
          accountId: string;
        }>(
          `SELECT t.id, t.connection_id AS "connectionId", t.platform, t.attempts, p.account_id AS "accountId"
           FROM publisher.post_targets t JOIN publisher.posts p ON p.id = t.post_id
           WHERE t.post_id = $1 AND t.status = 'scheduled'
           ORDER BY array_position(p.connection_ids, t.connection_id)`,
          [postId],
        );
        for (const target of due) {
          const outcome = decide(target);
          await tx.query(
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
          if (outcome.status !== "publishing") {
            const settled =
              outcome.status === "published"
                ? {
                    kind: "published" as const,
                    platformPostId: outcome.platformPostId,
                    url: outcome.url ?? null,
                  }
                : { kind: "failed" as const, error: outcome.error };
            await recordSettlement(tx, { ...target, postId }, settled, { workerId: FAKE_WORKER_ID }, now);
          }
        }
        await rederivePostStatus(tx, postId, now);
      });
      return targetOutcomes(db, postId);
    },
    async cancel(postId) {
      calls.push({ method: "cancel", postId });
      return cancelScheduledPost(db, postId, new Date());
    },
    async removePublished(copy) {
      calls.push({ method: "removePublished", copy });
      return remove(copy);
    },
  };
}

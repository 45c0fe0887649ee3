import { toIso } from "@app/core";
import type { Database, Queryable } from "@app/db";
import type { PostStatus } from "../contracts/post.ts";
import {
  explainEvidence,
  type PlannedRetry,
  planRetry,
  type RetryCandidate,
  type RetryPlan,
} from "../domain/retry-plan.ts";
import { appendEvent, appendPostSteps } from "./events.ts";
import { rederivePostStatus } from "./targets.ts";

/** A retry asked of one post (already known to be the account's). */
export type RetryRequest = {
  postId: string;
  accountId: string;
  force: boolean;
  /** Why the caller forces it (required with `force`): kept in the post's history. */
  reason?: string;
  /** Only the failed targets of these connections (each must have failed). */
  connectionIds?: readonly string[];
  now: Date;
};

/** A target a retry refused to run because its connection must be connected again. */
export type DeadConnection = { connectionId: string; platform: string };

/** What a retry did: ran the targets again (and the post's status now), or why it did nothing. */
export type RetryResult =
  | { kind: "retried"; status: PostStatus; targets: PlannedRetry[] }
  | Exclude<RetryPlan, { kind: "run" }>
  | { kind: "needs_reconnect"; connections: DeadConnection[] };

type TargetFacts = RetryCandidate & {
  error: string | null;
  attempts: number;
  connectionStatus: string;
};

/**
 * Runs a post's failed targets again (see `planRetry`), in one transaction that locks the post
 * first, as settling a target and cancelling do: each becomes `scheduled`, due now, with its
 * attempts counted afresh (0: the retry policy's full budget again; the history keeps the old
 * count) and its error cleared; a target forced past an unknown outcome loses its handle (it
 * starts over). The update is conditional on `failed`, and a second retry waits for the post's
 * lock and then finds nothing failed: two concurrent retries run it once. In the same
 * transaction: a `retry_requested` step per target (the evidence, `forced` and the caller's
 * `reason`, the former error and attempts), `post.scheduled` (with `retry`), and the post's
 * re-derived status (`post.publishing` when other targets are live). Nothing is written when the
 * plan refuses, or when a target's connection needs reconnecting.
 */
export async function retryFailedTargets(db: Database, request: RetryRequest): Promise<RetryResult> {
  const { postId, now } = request;
  return db.transaction(async (tx): Promise<RetryResult> => {
    await tx.query("SELECT id FROM publisher.posts WHERE id = $1 FOR NO KEY UPDATE", [postId]);
    const targets = await targetFacts(tx, postId);
    const plan = planRetry(targets, { force: request.force, connectionIds: request.connectionIds });
    if (plan.kind !== "run") return plan;
    const byId = new Map(targets.map((target) => [target.id, target]));
    const dead = plan.targets.filter((target) => byId.get(target.id)?.connectionStatus !== "active");
    if (dead.length > 0) {
      return {
        kind: "needs_reconnect",
        connections: dead.map(({ connectionId, platform }) => ({ connectionId, platform })),
      };
    }
    await tx.query(
      `UPDATE publisher.post_targets
       SET status = 'scheduled', next_attempt_at = $2, attempts = 0, error = NULL, updated_at = $2,
         claimed_by = NULL, claimed_until = NULL, claim_token = NULL,
         platform_handle = CASE WHEN id = ANY($3::text[]) THEN NULL ELSE platform_handle END
       WHERE post_id = $4 AND id = ANY($1::text[]) AND status = 'failed'`,
      [
        plan.targets.map((target) => target.id),
        now,
        plan.targets.filter((target) => target.dropHandle).map((target) => target.id),
        postId,
      ],
    );
    await recordRetry(tx, request, plan.targets, byId);
    await rederivePostStatus(tx, postId, now);
    const [post] = await tx.query<{ status: PostStatus }>(
      "SELECT status FROM publisher.posts WHERE id = $1",
      [postId],
    );
    return { kind: "retried", status: post?.status ?? "scheduled", targets: plan.targets };
  });
}

/** Every target of the post with what a retry weighs, in the order of the post's connections. */
function targetFacts(tx: Queryable, postId: string): Promise<TargetFacts[]> {
  return tx.query<TargetFacts>(
    `SELECT t.id, t.connection_id AS "connectionId", t.platform, t.status, t.platform_handle AS "platformHandle",
       t.error, t.attempts, c.status AS "connectionStatus"
     FROM publisher.post_targets t
       JOIN publisher.posts p ON p.id = t.post_id
       JOIN publisher.connections c ON c.id = t.connection_id
     WHERE t.post_id = $1 ORDER BY array_position(p.connection_ids, t.connection_id)`,
    [postId],
  );
}

/** The retry's steps (one per target) and its `post.scheduled` event, in the caller's transaction. */
async function recordRetry(
  tx: Queryable,
  request: RetryRequest,
  targets: readonly PlannedRetry[],
  facts: ReadonlyMap<string, TargetFacts>,
): Promise<void> {
  const forced = targets.some((target) => target.evidence === "unknown");
  const reason = request.force ? (request.reason ?? null) : null;
  await appendPostSteps(
    tx,
    targets.map((target) => ({
      postId: request.postId,
      targetId: target.id,
      step: "retry_requested",
      detail: {
        evidence: target.evidence,
        explanation: explainEvidence(target.platform, target.evidence),
        forced: target.evidence === "unknown",
        reason,
        handleDropped: target.dropHandle,
        previousError: facts.get(target.id)?.error ?? null,
        previousAttempts: facts.get(target.id)?.attempts ?? 0,
      },
    })),
    request.now,
  );
  const [post] = await tx.query<{ scheduledFor: Date | null }>(
    `SELECT scheduled_for AS "scheduledFor" FROM publisher.posts WHERE id = $1`,
    [request.postId],
  );
  await appendEvent(
    tx,
    {
      accountId: request.accountId,
      type: "post.scheduled",
      postId: request.postId,
      data: {
        postId: request.postId,
        status: "scheduled",
        scheduledFor: post?.scheduledFor ? toIso(post.scheduledFor) : null,
        dueAt: toIso(request.now),
        platforms: [...new Set(targets.map((target) => target.platform))],
        targets: targets.map((target) => ({
          targetId: target.id,
          connectionId: target.connectionId,
          platform: target.platform,
        })),
        retry: { forced, reason },
      },
    },
    request.now,
  );
}

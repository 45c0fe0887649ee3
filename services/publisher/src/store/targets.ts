import type { Database, Queryable } from "@app/db";
import type { PostContent, PostStatus, PostTarget, TargetStatus } from "../contracts/post.ts";
import { derivePostStatus } from "../domain/post-status.ts";
import { appendEvent, appendPostStep } from "./events.ts";
import {
  recordClaims,
  recordExpiredLeases,
  recordPostStatus,
  recordPostsPublishing,
  recordSettlement,
  type SettledTarget,
  type SettlementReport,
} from "./run-history.ts";

/**
 * A target a worker holds (its lease), with the post's content. `claimToken` is this claim's own:
 * every later write is conditional on it, so a re-claim (even by the same worker) voids it.
 */
export type ClaimedTarget = PostTarget & {
  content: PostContent;
  /** The post's account (workers share their slots between accounts). */
  accountId: string;
  claimedBy: string;
  claimToken: string;
  claimedUntil: Date;
};

/** The claim a worker holds on a target (what its conditional writes check). */
export type HeldClaim = Pick<ClaimedTarget, "id" | "claimToken">;

/** How a held target ends this turn: published, failed, or handed back to run again later. */
export type TargetSettlement =
  | { kind: "published"; platformPostId: string; url: string | null }
  | { kind: "failed"; error: string }
  | {
      kind: "later";
      runAt: Date;
      countAsAttempt: boolean;
      error: string | null;
      /** The delay `runAt` was chosen with (the history shows it), when a retry policy chose it. */
      delayMs?: number;
    };

const TARGET_COLUMNS = `t.id, t.post_id AS "postId", t.connection_id AS "connectionId", t.platform, t.status,
  t.due_at AS "dueAt", t.attempts, t.platform_handle AS "platformHandle", t.platform_post_id AS "platformPostId",
  t.url, t.error, t.claimed_by AS "claimedBy", t.claim_token AS "claimToken", t.claimed_until AS "claimedUntil"`;

/**
 * Runs `work` in a transaction committed asynchronously (`synchronous_commit = off`): visible at
 * once, durable within PostgreSQL's WAL writer delay (200 ms by default) rather than after a disk
 * flush of its own. For the worker's bookkeeping whose loss in a database crash is already
 * recovered from: a lost claim or "publishing" status is a target due again (nothing was sent to a
 * platform before its handle save, which stays synchronous and flushes everything before it); a
 * lost settlement is a target run again, which resumes from its saved handle. Under a burst this
 * takes three of a target's four disk flushes away (the claim, the post's status, the settlement).
 */
export async function withAsyncCommit<T>(
  db: Database,
  work: (tx: Queryable) => Promise<T>,
  options: { claiming?: boolean } = {},
): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query(options.claiming ? CLAIM_SETTINGS : "SET LOCAL synchronous_commit = off");
    return work(tx);
  });
}

/**
 * A worker's claim walks the due-targets index in `next_attempt_at` order and stops after its
 * `limit` rows. When the statistics lag a burst (thousands of targets inserted since the last
 * ANALYZE, the old statistics saying next to none are scheduled), PostgreSQL instead chose a bitmap
 * scan of every due row and a sort: 23 ms a claim at 6,000 due, the whole burst's bottleneck. A
 * bitmap scan also never marks the dead index entries of settled targets, so they were visited again
 * by every claim. These settings hold for the claim's transaction only.
 */
const CLAIM_SETTINGS = `SELECT set_config('synchronous_commit', 'off', true), set_config('enable_bitmapscan', 'off', true),
  set_config('enable_sort', 'off', true)`;

/**
 * Claims up to `limit` due targets for `workerId` (all due ones of `postId` when given): a
 * conditional update of rows picked under `FOR UPDATE SKIP LOCKED`, so concurrent workers never
 * claim the same target. A claim moves the target to `publishing` with a lease until `leaseUntil`
 * and a fresh random claim token, and records a `claimed` step in the same transaction.
 * `excludeIds` are targets the caller's process is still running under an older claim (one whose
 * lease ran out and was handed back): it must not claim them again while that stale run goes on;
 * another process may.
 */
export async function claimDueTargets(
  db: Database,
  input: {
    workerId: string;
    limit: number;
    now: Date;
    leaseUntil: Date;
    postId?: string;
    excludeIds?: readonly string[];
  },
): Promise<ClaimedTarget[]> {
  return db.transaction(async (tx) => {
    const claimed = await tx.query<ClaimedTarget>(
      `UPDATE publisher.post_targets t
     SET status = 'publishing', claimed_by = $1, claimed_until = $2, updated_at = $3,
       claim_token = gen_random_uuid()::text
     FROM publisher.posts p
     WHERE p.id = t.post_id AND t.id IN (
       SELECT id FROM publisher.post_targets
       WHERE status IN ('scheduled', 'publishing') AND claimed_by IS NULL AND next_attempt_at <= $3
         AND ($5::text IS NULL OR post_id = $5) AND NOT (id = ANY($6::text[]))
       ORDER BY next_attempt_at LIMIT $4
       FOR UPDATE SKIP LOCKED)
     RETURNING ${TARGET_COLUMNS}, p.content, p.account_id AS "accountId"`,
      [
        input.workerId,
        input.leaseUntil,
        input.now,
        input.limit,
        input.postId ?? null,
        [...(input.excludeIds ?? [])],
      ],
    );
    await recordClaims(tx, claimed, input.workerId, input.now);
    return claimed;
  });
}

/**
 * Locks, for a claim in the same transaction, up to `limit` due and unclaimed targets in due order
 * (`FOR UPDATE OF t SKIP LOCKED`: rows another worker is locking are passed over, never waited
 * for), with their posts' accounts, leaving out `excludeIds` (targets this process still runs)
 * and the targets of `skipAccounts`. The caller then claims some of them with
 * {@link claimLockedTargets}; the others are free again when its transaction ends.
 */
export async function lockDueCandidates(
  tx: Queryable,
  input: { now: Date; limit: number; excludeIds?: readonly string[]; skipAccounts?: readonly string[] },
): Promise<{ id: string; accountId: string }[]> {
  if (input.limit <= 0) return [];
  return tx.query<{ id: string; accountId: string }>(
    `SELECT t.id, p.account_id AS "accountId"
     FROM publisher.post_targets t JOIN publisher.posts p ON p.id = t.post_id
     WHERE t.status IN ('scheduled', 'publishing') AND t.claimed_by IS NULL AND t.next_attempt_at <= $1
       AND NOT (t.id = ANY($2::text[])) AND NOT (p.account_id = ANY($3::text[]))
     ORDER BY t.next_attempt_at LIMIT $4
     FOR UPDATE OF t SKIP LOCKED`,
    [input.now, [...(input.excludeIds ?? [])], [...(input.skipAccounts ?? [])], input.limit],
  );
}

/**
 * Claims targets locked by {@link lockDueCandidates} in the same transaction for `workerId`: each
 * moves to `publishing` with a lease until `leaseUntil` and a fresh claim token, with its
 * `claimed` step, as {@link claimDueTargets} does. The conditions are stated again, so a row not
 * locked as expected is never claimed twice.
 */
export async function claimLockedTargets(
  tx: Queryable,
  input: { ids: readonly string[]; workerId: string; now: Date; leaseUntil: Date },
): Promise<ClaimedTarget[]> {
  if (input.ids.length === 0) return [];
  const claimed = await tx.query<ClaimedTarget>(
    `UPDATE publisher.post_targets t
     SET status = 'publishing', claimed_by = $1, claimed_until = $2, updated_at = $3,
       claim_token = gen_random_uuid()::text
     FROM publisher.posts p
     WHERE p.id = t.post_id AND t.id = ANY($4::text[])
       AND t.status IN ('scheduled', 'publishing') AND t.claimed_by IS NULL
     RETURNING ${TARGET_COLUMNS}, p.content, p.account_id AS "accountId"`,
    [input.workerId, input.leaseUntil, input.now, [...input.ids]],
  );
  await recordClaims(tx, claimed, input.workerId, input.now);
  return claimed;
}

/** Extends the leases of the claims still held; returns the ids of those still held. */
export async function extendLeases(
  db: Queryable,
  claims: readonly HeldClaim[],
  leaseUntil: Date,
): Promise<string[]> {
  if (claims.length === 0) return [];
  const rows = await db.query<{ id: string }>(
    `UPDATE publisher.post_targets t SET claimed_until = $3
     FROM unnest($1::text[], $2::text[]) AS held(id, token)
     WHERE t.id = held.id AND t.claim_token = held.token AND t.status = 'publishing' RETURNING t.id`,
    [claims.map((claim) => claim.id), claims.map((claim) => claim.claimToken), leaseUntil],
  );
  return rows.map((row) => row.id);
}

/**
 * Saves the platform's handle while the claim is held, with its `handle_saved` step (`detail`:
 * what the history may show of it, never its upload URLs). False when the claim was lost: the
 * caller must then stop before any irreversible step.
 */
export async function saveHandle(
  db: Database,
  input: HeldClaim & {
    postId: string;
    handle: Record<string, unknown>;
    detail: Record<string, unknown>;
    now: Date;
  },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx.query(
      `UPDATE publisher.post_targets SET platform_handle = $3::jsonb, updated_at = $4
       WHERE id = $1 AND claim_token = $2 AND status = 'publishing' RETURNING id`,
      [input.id, input.claimToken, JSON.stringify(input.handle), input.now],
    );
    if (rows.length !== 1) return false;
    await appendPostStep(
      tx,
      { postId: input.postId, targetId: input.id, step: "handle_saved", detail: input.detail },
      input.now,
    );
    return true;
  });
}

/**
 * Ends a claim's turn on a target and re-derives its post's status, in one transaction that
 * locks the post first, with what the history and the events say of it (run-history.ts: the
 * outcome's step and event, a retry's delay, the post's new status). False when the claim had
 * been lost (nothing is written then). The post's lock (with its status), the target's update
 * returning every target's status of the post, the history, and the post's new status only when
 * it changed.
 */
export async function settleTarget(
  db: Database,
  input: {
    target: Pick<ClaimedTarget, "claimToken"> & SettledTarget;
    settlement: TargetSettlement;
    now: Date;
    report: SettlementReport;
  },
): Promise<boolean> {
  const { target, settlement, now } = input;
  const set =
    settlement.kind === "published"
      ? {
          sql: "status = 'published', platform_post_id = $5, url = $6, error = NULL",
          params: [settlement.platformPostId, settlement.url],
        }
      : settlement.kind === "failed"
        ? { sql: "status = 'failed', error = $5", params: [settlement.error] }
        : {
            sql: "next_attempt_at = $5, attempts = attempts + $6, error = $7",
            params: [settlement.runAt, settlement.countAsAttempt ? 1 : 0, settlement.error],
          };
  return db.transaction(async (tx) => {
    // A failure is settled durably (a user may act on it); anything else may commit
    // asynchronously: lost in a crash, the target runs again and resumes from its handle.
    if (settlement.kind !== "failed") await tx.query("SET LOCAL synchronous_commit = off");
    const [post] = await tx.query<{ status: PostStatus }>(
      "SELECT status FROM publisher.posts WHERE id = $1 FOR NO KEY UPDATE",
      [target.postId],
    );
    // The update's own row is seen through RETURNING (a statement does not see its own writes).
    const rows = await tx.query<{ status: TargetStatus; settled: boolean }>(
      `WITH settled AS (
         UPDATE publisher.post_targets SET ${set.sql},
           claimed_by = NULL, claimed_until = NULL, claim_token = NULL, updated_at = $3
         WHERE id = $1 AND claim_token = $2 AND status = 'publishing' RETURNING id, status)
       SELECT coalesce(settled.status, t.status) AS status, settled.id IS NOT NULL AS settled
       FROM publisher.post_targets t LEFT JOIN settled ON settled.id = t.id
       WHERE t.post_id = $4`,
      [target.id, target.claimToken, now, target.postId, ...set.params],
    );
    if (!rows.some((row) => row.settled)) return false;
    await recordSettlement(tx, target, settlement, input.report, now);
    const status = derivePostStatus(rows.map((row) => row.status));
    if (status !== post?.status) await writePostStatus(tx, target.postId, status, now);
    return true;
  });
}

/** Writes a post's new status (when it is new) and the event that tells it (run-history.ts). */
async function writePostStatus(tx: Queryable, postId: string, status: PostStatus, now: Date): Promise<void> {
  const [changed] = await tx.query<{ accountId: string }>(
    `UPDATE publisher.posts SET status = $2, updated_at = $3,
       scheduled_for = CASE WHEN $2 = 'draft' THEN NULL ELSE scheduled_for END
     WHERE id = $1 AND status IS DISTINCT FROM $2 RETURNING account_id AS "accountId"`,
    [postId, status, now],
  );
  if (changed) await recordPostStatus(tx, { id: postId, accountId: changed.accountId }, status, now);
}

/**
 * Locks a post against other writers of it. `FOR NO KEY UPDATE`, never `FOR UPDATE`: a worker's
 * claim holds its target's lock while it writes history rows that reference the post, which takes
 * a key-share lock on the post; `FOR UPDATE` conflicts with that, and a writer holding the post
 * while waiting for the target would deadlock with the claim. Posts are never deleted or re-keyed.
 */
async function lockPost(tx: Queryable, postId: string): Promise<void> {
  await tx.query("SELECT id FROM publisher.posts WHERE id = $1 FOR NO KEY UPDATE", [postId]);
}

/** Re-derives a post's stored status from its targets'. The caller holds the post's row lock. */
export async function rederivePostStatus(tx: Queryable, postId: string, now: Date): Promise<void> {
  const targets = await tx.query<{ status: TargetStatus }>(
    "SELECT status FROM publisher.post_targets WHERE post_id = $1",
    [postId],
  );
  await writePostStatus(tx, postId, derivePostStatus(targets.map((target) => target.status)), now);
}

/** Locks the post and re-derives its status (after claims, which do not lock posts). */
export async function refreshPostStatus(db: Database, postId: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await lockPost(tx, postId);
    await rederivePostStatus(tx, postId, now);
  });
}

/**
 * After a claim: the claimed targets' posts become `publishing`, in one statement, and each post
 * that changed gets its `post.publishing` event: run it in a transaction. That is their derived
 * status whatever their other targets say, as long as the claimed target is still `publishing`
 * under this claim, which the statement checks; a settlement made meanwhile re-derives the status
 * under the post's lock anyway. It touches only posts, so it cannot deadlock with a settlement or
 * a cancel (which lock the post, then its targets).
 */
export async function markClaimedPostsPublishing(
  tx: Queryable,
  claims: readonly Pick<ClaimedTarget, "postId" | "claimToken">[],
  now: Date,
): Promise<void> {
  if (claims.length === 0) return;
  const started = await tx.query<{ id: string; accountId: string }>(
    `UPDATE publisher.posts p SET status = 'publishing', updated_at = $3
     WHERE p.id = ANY($1::text[]) AND p.status <> 'publishing'
       AND EXISTS (SELECT 1 FROM publisher.post_targets t
                   WHERE t.post_id = p.id AND t.claim_token = ANY($2::text[]) AND t.status = 'publishing')
     RETURNING p.id, p.account_id AS "accountId"`,
    [[...new Set(claims.map((claim) => claim.postId))], claims.map((claim) => claim.claimToken), now],
  );
  await recordPostsPublishing(tx, started, now);
}

/**
 * Hands back claims whose lease ran out (a worker died or stalled): they become due now for any
 * worker, each with a `lease_expired` step. Returns the targets released.
 */
export async function releaseExpiredClaims(
  db: Database,
  now: Date,
): Promise<{ id: string; postId: string; claimedBy: string }[]> {
  return db.transaction(async (tx) => {
    const released = await tx.query<{ id: string; postId: string; claimedBy: string }>(
      `UPDATE publisher.post_targets t SET claimed_by = NULL, claimed_until = NULL, claim_token = NULL, next_attempt_at = $1,
       updated_at = $1
     FROM (SELECT id, claimed_by FROM publisher.post_targets
           WHERE claimed_by IS NOT NULL AND claimed_until < $1 AND status = 'publishing'
           FOR UPDATE SKIP LOCKED) expired
     WHERE t.id = expired.id
     RETURNING t.id, t.post_id AS "postId", expired.claimed_by AS "claimedBy"`,
      [now],
    );
    await recordExpiredLeases(tx, released, now);
    return released;
  });
}

/**
 * Cancels a scheduled post: in one transaction (post locked first), every target must still be
 * `scheduled` and unclaimed; they become `canceled` and the post `draft` with no schedule, and
 * its `post.cancelled` event is written. A worker's claim and this update are both conditional,
 * so exactly one of them wins.
 */
export async function cancelScheduledPost(db: Database, postId: string, now: Date): Promise<boolean> {
  return db
    .transaction(async (tx) => {
      const [post] = await tx.query<{ status: string; accountId: string; scheduledFor: Date | null }>(
        `SELECT status, account_id AS "accountId", scheduled_for AS "scheduledFor"
         FROM publisher.posts WHERE id = $1 FOR NO KEY UPDATE`,
        [postId],
      );
      if (post?.status !== "scheduled") return false;
      const canceled = await tx.query(
        `UPDATE publisher.post_targets SET status = 'canceled', updated_at = $2
       WHERE post_id = $1 AND status = 'scheduled' AND claimed_by IS NULL RETURNING id`,
        [postId, now],
      );
      const [{ total } = { total: 0 }] = await tx.query<{ total: number }>(
        "SELECT count(*)::int AS total FROM publisher.post_targets WHERE post_id = $1",
        [postId],
      );
      if (canceled.length !== total) throw new CancelRace();
      await rederivePostStatus(tx, postId, now);
      await appendEvent(
        tx,
        {
          accountId: post.accountId,
          type: "post.cancelled",
          postId,
          data: {
            postId,
            status: "draft",
            scheduledFor: post.scheduledFor ? post.scheduledFor.toISOString() : null,
          },
        },
        now,
      );
      return true;
    })
    .catch((error: unknown) => {
      if (error instanceof CancelRace) return false;
      throw error;
    });
}

/** Thrown inside the cancel transaction to roll it back when a worker already started a target. */
class CancelRace extends Error {}

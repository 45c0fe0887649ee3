import { toIso } from "@app/core";
import type { Queryable } from "@app/db";
import type { NewPostStep, PublisherEventType } from "../contracts/events.ts";
import type { Platform, PostStatus } from "../contracts/post.ts";
import type { PostStepName } from "../domain/post-steps.ts";
import { appendEvent, appendEvents, appendPostSteps } from "./events.ts";

/**
 * What the events and the history say of the workers' state changes: each function writes in the
 * caller's transaction, the one that makes the change (the outbox).
 */

/** The platform's answer to a failed turn, as the history and `target.failed` show it (no secrets). */
export type FailureAnswer = {
  /** The platform's own code (`quotaExceeded`, `RateLimitExceeded`, …), or ours (`MEDIA_UNAVAILABLE`, `INTERNAL`). */
  code: string;
  message: string;
  /** The platform that answered, when one did. */
  platform?: Platform;
  /** Its HTTP status, when it sent one. */
  httpStatus?: number;
};

/** Who settles a turn and what the platform answered (a failure's). */
export type SettlementReport = { workerId: string; answer?: FailureAnswer };

/** A settled target, as its events name it. */
export type SettledTarget = {
  id: string;
  postId: string;
  accountId: string;
  connectionId: string;
  platform: Platform;
  /** Failed turns before this one. */
  attempts: number;
};

/** How a turn ended, as {@link recordSettlement} tells it (the store's settlement, flattened). */
export type SettledAs =
  | { kind: "published"; platformPostId: string; url: string | null }
  | { kind: "failed"; error: string }
  | { kind: "later"; runAt: Date; error: string | null; delayMs?: number };

const step = (
  target: { id: string; postId: string },
  name: PostStepName,
  detail: Record<string, unknown>,
): NewPostStep => ({ postId: target.postId, targetId: target.id, step: name, detail });

/** A `claimed` step for each target a worker claimed (`resumed` when a saved handle is there). */
export async function recordClaims(
  tx: Queryable,
  claimed: ReadonlyArray<{
    id: string;
    postId: string;
    attempts: number;
    platformHandle: Record<string, unknown> | null;
  }>,
  workerId: string,
  at: Date,
): Promise<void> {
  await appendPostSteps(
    tx,
    claimed.map((target) =>
      step(target, "claimed", {
        workerId,
        attempt: target.attempts + 1,
        resumed: target.platformHandle !== null && Object.keys(target.platformHandle).length > 0,
      }),
    ),
    at,
  );
}

/** A `lease_expired` step for each claim the sweeper handed back. */
export async function recordExpiredLeases(
  tx: Queryable,
  released: ReadonlyArray<{ id: string; postId: string; claimedBy: string }>,
  at: Date,
): Promise<void> {
  await appendPostSteps(
    tx,
    released.map((target) => step(target, "lease_expired", { formerWorker: target.claimedBy })),
    at,
  );
}

/**
 * A turn's end: the `published` or `failed` step with its `target.published` / `target.failed`
 * event (the platform's reason with it), or a `retry_scheduled` step with the delay. A turn that
 * only polls again (the platform still processing) records nothing: it would repeat every poll.
 */
export async function recordSettlement(
  tx: Queryable,
  target: SettledTarget,
  settled: SettledAs,
  report: SettlementReport,
  at: Date,
): Promise<void> {
  const { workerId, answer } = report;
  const about = {
    postId: target.postId,
    targetId: target.id,
    connectionId: target.connectionId,
    platform: target.platform,
  };
  if (settled.kind === "later") {
    if (settled.error === null) return;
    const detail = {
      workerId,
      attempt: target.attempts + 1,
      delayMs: settled.delayMs ?? Math.max(0, settled.runAt.getTime() - at.getTime()),
      runAt: toIso(settled.runAt),
      error: settled.error,
      ...(answer ? { answer } : {}),
    };
    await appendPostSteps(tx, [step(target, "retry_scheduled", detail)], at);
    return;
  }
  if (settled.kind === "published") {
    const outcome = { platformPostId: settled.platformPostId, url: settled.url };
    await appendPostSteps(tx, [step(target, "published", { workerId, ...outcome })], at);
    await appendTargetEvent(tx, target.accountId, "target.published", { ...about, ...outcome }, at);
    return;
  }
  const failure = {
    error: settled.error,
    reason: answer?.code ?? null,
    message: answer?.message ?? null,
  };
  await appendPostSteps(
    tx,
    [
      step(target, "failed", {
        workerId,
        attempts: target.attempts + 1,
        ...failure,
        ...(answer ? { answer } : {}),
      }),
    ],
    at,
  );
  await appendTargetEvent(tx, target.accountId, "target.failed", { ...about, ...failure }, at);
}

function appendTargetEvent(
  tx: Queryable,
  accountId: string,
  type: "target.published" | "target.failed",
  data: { postId: string; targetId: string } & Record<string, unknown>,
  at: Date,
): Promise<string> {
  return appendEvent(tx, { accountId, type, postId: data.postId, targetId: data.targetId, data }, at);
}

/** The event a post's new status is told by (none for `scheduled` and `draft`: see their writers). */
const STATUS_EVENTS: Partial<Record<PostStatus, PublisherEventType>> = {
  publishing: "post.publishing",
  published: "post.published",
  partial: "post.partial",
  failed: "post.failed",
};

/**
 * The event of a post that just moved to `status`: `post.publishing` when its first target
 * started, `post.published` / `post.partial` / `post.failed` (with every target's outcome) when
 * the last one ended. Nothing for `scheduled` or `draft` (`post.scheduled` is written with the
 * post, `post.cancelled` by the cancel).
 */
export async function recordPostStatus(
  tx: Queryable,
  post: { id: string; accountId: string },
  status: PostStatus,
  at: Date,
): Promise<void> {
  const type = STATUS_EVENTS[status];
  if (!type) return;
  const data: Record<string, unknown> = { postId: post.id, status };
  if (status !== "publishing") data.targets = await targetSummaries(tx, post.id);
  await appendEvent(tx, { accountId: post.accountId, type, postId: post.id, data }, at);
}

/** `post.publishing` for each post a claim started (`posts`: those that just became `publishing`). */
export async function recordPostsPublishing(
  tx: Queryable,
  posts: ReadonlyArray<{ id: string; accountId: string }>,
  at: Date,
): Promise<void> {
  await appendEvents(
    tx,
    posts.map((post) => ({
      accountId: post.accountId,
      type: "post.publishing" as const,
      postId: post.id,
      data: { postId: post.id, status: "publishing" },
    })),
    at,
  );
}

/** Each target's outcome, in the order of the post's connections (an ended post's event carries them). */
async function targetSummaries(tx: Queryable, postId: string): Promise<Record<string, unknown>[]> {
  return tx.query(
    `SELECT t.id AS "targetId", t.connection_id AS "connectionId", t.platform, t.status,
       t.platform_post_id AS "platformPostId", t.url, t.error
     FROM publisher.post_targets t JOIN publisher.posts p ON p.id = t.post_id
     WHERE t.post_id = $1 ORDER BY array_position(p.connection_ids, t.connection_id)`,
    [postId],
  );
}

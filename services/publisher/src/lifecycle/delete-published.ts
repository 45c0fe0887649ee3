import { type Clock, toIso } from "@app/core";
import type { Database } from "@app/db";
import type { Platform } from "../contracts/post.ts";
import type { CopyKeptCode, CopyRemoval, Publishing } from "../contracts/publishing.ts";
import { PublisherError } from "../errors.ts";
import {
  type CopyTarget,
  copyTargets,
  type KeptCopy,
  type RemovedCopy,
  recordCopiesDeleted,
} from "../store/published-copies.ts";

/** Why a target's copy is not removed: the platform's answer, or the target is still publishing. */
export type CopyOutcomeCode = CopyKeptCode | "STILL_PUBLISHING";

/** What became of one target's published copy. */
export type CopyOutcome = {
  connectionId: string;
  platform: Platform;
  platformPostId: string | null;
  deleted: boolean;
  /** When the copy was removed (or found gone); null while it stands. */
  deletedAt: string | null;
  code: CopyOutcomeCode | null;
  /** Why it stays, or that the platform no longer had it. */
  reason: string | null;
};

/** The answer: every copy removed (`allDeleted`), and each target's outcome. */
export type DeletePublishedAnswer = { postId: string; allDeleted: boolean; targets: CopyOutcome[] };

const STILL_PUBLISHING =
  "Still publishing: a post under way cannot be called back. Delete again once it has finished.";

/**
 * Removes a post's published copies from their platforms (the post is the account's: the caller
 * checked). Each published target not removed before is asked of its platform (through
 * publishing, with the connection's token); those removed are recorded in one transaction with
 * the `post.deleted` event. A target removed before is reported from the record, without asking
 * again; one still scheduled or publishing is reported as such (it may publish later); failed and
 * cancelled targets hold no copy and are left out. 409 `POST_NOT_PUBLISHED` when no target was
 * published. Two requests at once may both ask the platforms (each answers a second delete as
 * gone); the record and its event are written once.
 */
export async function deletePublished(
  deps: { db: Database; clock: Clock; publishing: Publishing },
  post: { id: string; accountId: string },
): Promise<DeletePublishedAnswer> {
  const targets = await copyTargets(deps.db, post.id);
  const published = targets.filter(isPublished);
  if (published.length === 0) {
    throw new PublisherError(
      "POST_NOT_PUBLISHED",
      "None of this post's targets was published: nothing to delete.",
      {
        postId: post.id,
        targets: targets.map(({ connectionId, platform, status }) => ({ connectionId, platform, status })),
      },
    );
  }
  const asked = published.filter((target) => target.deletedAt === null);
  const answers = await Promise.all(
    asked.map(async (target) => ({
      target,
      removal: await deps.publishing.removePublished({
        connectionId: target.connectionId,
        platform: target.platform,
        platformPostId: target.platformPostId,
      }),
    })),
  );
  const removed: RemovedCopy[] = [];
  const kept: KeptCopy[] = [];
  for (const { target, removal } of answers) {
    if (removal.deleted) removed.push({ target, alreadyGone: removal.alreadyGone });
    else kept.push({ target, code: removal.code, reason: removal.reason });
  }
  const deletedAt = await recordCopiesDeleted(deps.db, {
    postId: post.id,
    accountId: post.accountId,
    removed,
    kept,
    now: deps.clock.now(),
  });
  const removals = new Map(answers.map(({ target, removal }) => [target.id, removal]));
  const outcomes = targets
    .filter(
      (target) => isPublished(target) || target.status === "scheduled" || target.status === "publishing",
    )
    .map((target) => outcomeOf(target, removals.get(target.id), deletedAt.get(target.id)));
  return { postId: post.id, allDeleted: outcomes.every((outcome) => outcome.deleted), targets: outcomes };
}

/** A target whose copy stands on its platform (or stood: `deletedAt`). */
const isPublished = (target: CopyTarget): target is CopyTarget & { platformPostId: string } =>
  target.status === "published" && target.platformPostId !== null;

/** One target's outcome from its record and, when it was asked just now, the platform's answer. */
function outcomeOf(
  target: CopyTarget,
  removal: CopyRemoval | undefined,
  removedAt: Date | undefined,
): CopyOutcome {
  const base = {
    connectionId: target.connectionId,
    platform: target.platform,
    platformPostId: target.platformPostId,
  };
  if (target.status !== "published") {
    return { ...base, deleted: false, deletedAt: null, code: "STILL_PUBLISHING", reason: STILL_PUBLISHING };
  }
  const at = removedAt ?? target.deletedAt;
  if (removal && !removal.deleted) {
    return { ...base, deleted: false, deletedAt: null, code: removal.code, reason: removal.reason };
  }
  return {
    ...base,
    deleted: true,
    deletedAt: at ? toIso(at) : null,
    code: null,
    reason: removal?.alreadyGone ? "The platform no longer had it." : null,
  };
}

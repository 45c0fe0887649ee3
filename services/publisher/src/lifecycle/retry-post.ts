import type { Clock } from "@app/core";
import type { Database } from "@app/db";
import type { Platform, PostStatus } from "../contracts/post.ts";
import { explainEvidence, type HandleEvidence } from "../domain/retry-plan.ts";
import { PublisherError } from "../errors.ts";
import { retryFailedTargets } from "../store/target-retry.ts";

/** What the caller asked: which post, whether to force past unknown outcomes and why, which targets. */
export type RetryPostInput = {
  accountId: string;
  postId: string;
  force: boolean;
  reason?: string;
  connectionIds?: readonly string[];
};

/** One target run again: what its saved handle proved, and whether it starts over. */
export type RetriedTarget = {
  connectionId: string;
  platform: Platform;
  evidence: HandleEvidence;
  forced: boolean;
  handleDropped: boolean;
};

/** The retry's answer: the post's status now and the targets run again. */
export type RetryPostAnswer = { postId: string; status: PostStatus; retried: RetriedTarget[] };

/**
 * Retries a post's failed targets (the post is the account's: the caller checked): they run
 * again, due now, or the retry is refused and nothing changes: 409 `PUBLISH_OUTCOME_UNKNOWN`
 * naming the targets the platform may already hold (unless forced), 409 `NOTHING_TO_RETRY` when
 * nothing asked for failed, 400 `INVALID_CONNECTION` when a target's connection needs
 * reconnecting (it would only fail again).
 */
export async function retryPost(
  deps: { db: Database; clock: Clock },
  input: RetryPostInput,
): Promise<RetryPostAnswer> {
  const result = await retryFailedTargets(deps.db, { ...input, now: deps.clock.now() });
  switch (result.kind) {
    case "retried":
      return {
        postId: input.postId,
        status: result.status,
        retried: result.targets.map((target) => ({
          connectionId: target.connectionId,
          platform: target.platform,
          evidence: target.evidence,
          forced: target.evidence === "unknown",
          handleDropped: target.dropHandle,
        })),
      };
    case "outcome_unknown":
      throw new PublisherError(
        "PUBLISH_OUTCOME_UNKNOWN",
        `The platform may already hold ${result.unknown.length === 1 ? "this target's post" : "these targets' posts"}: ${result.unknown
          .map((target) => `${target.connectionId} (${target.platform})`)
          .join(
            ", ",
          )}. Retry the others with connectionIds, or send force: true with a reason to run them again anyway.`,
        {
          postId: input.postId,
          targets: result.unknown.map((target) => ({
            connectionId: target.connectionId,
            platform: target.platform,
            explanation: explainEvidence(target.platform, target.evidence),
          })),
        },
      );
    case "nothing_failed":
      throw new PublisherError("NOTHING_TO_RETRY", nothingToRetry(result.notFailed, result.notTargets), {
        postId: input.postId,
        targets: result.notFailed.map(({ connectionId, platform, status }) => ({
          connectionId,
          platform,
          status,
        })),
        ...(result.notTargets.length > 0 ? { unknownConnectionIds: result.notTargets } : {}),
      });
    case "needs_reconnect": {
      const [first] = result.connections;
      throw new PublisherError(
        "INVALID_CONNECTION",
        `Connect ${result.connections.map((dead) => `${dead.connectionId} (${dead.platform})`).join(", ")} again before retrying: a retry would only fail.`,
        { connectionId: first?.connectionId, platform: first?.platform, reason: "needs_reconnect" },
      );
    }
  }
}

function nothingToRetry(
  notFailed: ReadonlyArray<{ connectionId: string; status: string }>,
  notTargets: readonly string[],
): string {
  if (notTargets.length > 0) return `${notTargets.join(", ")}: not a connection of this post.`;
  const statuses = notFailed.map((target) => `${target.connectionId} is ${target.status}`).join(", ");
  return `Only failed targets can be retried${statuses ? `: ${statuses}` : ""}.`;
}

import type { MediaItem, Platform, PostContent } from "../contracts/post.ts";
import { contentProblemFor } from "../domain/platform-rules.ts";
import { POST_LIMITS } from "../domain/post-limits.ts";
import { PublisherError } from "../errors.ts";
import type { MediaRefusal } from "../media/preflight/media-preflight.ts";
import type { CreatorLimits } from "../media/preflight/media-rules.ts";
import { PlatformError } from "../platforms/errors.ts";
import type { ConnectionSummary } from "../store/account-connections.ts";
import { findGroups } from "../store/groups.ts";
import type { RouteDeps, TikTokCreatorFacts } from "./deps.ts";
import type { PostPayloadBody } from "./post-payload.ts";

/**
 * The checks a post's payload goes through, one at a time, shared by the creates (which stop at
 * the first refusal, `preparePost`), the edit, and the dry run (which answers every target's).
 */

/** 400 VALIDATION_FAILED with the issues found, as the platform renders them. */
export function invalidPayload(issues: Array<{ path: string; message: string }>): PublisherError {
  return new PublisherError("VALIDATION_FAILED", "The request is not valid in the body.", { issues });
}

const invalid = (path: string, message: string) => invalidPayload([{ path, message }]);

/**
 * A post's `scheduledFor` (ISO 8601 with an offset, already checked by the schema) as an instant,
 * refused (400 VALIDATION_FAILED, path `scheduledFor`) unless strictly after `now`.
 */
export function futureInstant(scheduledFor: string, now: Date): Date {
  const when = new Date(scheduledFor);
  if (when.getTime() <= now.getTime()) throw invalid("scheduledFor", "must be in the future");
  return when;
}

/** How long the checks of a post may take while its request waits. */
export type CheckLimits = {
  /**
   * All of them: creator_info, imports, media checks and fitting. Past it the request is a 504
   * `PREFLIGHT_TIMEOUT` and nothing is stored, well before the server's idle timeout (330 s)
   * would cut the connection while the post was still being created.
   */
  deadlineMs: number;
  /** One TikTok `creator_info` call, past which it counts as unreachable (the post goes on). */
  creatorInfoTimeoutMs: number;
  /** TikTok `creator_info` calls at once (a post has at most 20 connections). */
  creatorInfoConcurrency: number;
};

export const CHECK_LIMITS: CheckLimits = {
  deadlineMs: 60_000,
  creatorInfoTimeoutMs: 5_000,
  creatorInfoConcurrency: 4,
};

const TIMED_OUT = Symbol("timed out");

/** `work`, or {@link TIMED_OUT} once `ms` have passed (the work is left to finish on its own). */
function withinTime<T>(work: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * The checks that call other hosts and read media (`work`, handed the signal that calls them
 * off), within `deadlineMs`: past it the request is refused (504 `PREFLIGHT_TIMEOUT`), the signal
 * aborts, and what the checks still return once they stop goes to `leftover` (to delete it).
 */
export async function withinCheckDeadline<T>(
  deadlineMs: number,
  work: (signal: AbortSignal) => Promise<T>,
  leftover: (late: T) => Promise<void> = async () => {},
): Promise<T> {
  const deadline = new AbortController();
  const checks = work(deadline.signal);
  const outcome = await withinTime(checks, deadlineMs);
  if (outcome !== TIMED_OUT) return outcome;
  deadline.abort();
  checks.then(leftover).catch(() => undefined);
  throw new PublisherError(
    "PREFLIGHT_TIMEOUT",
    `The post's checks (TikTok creator_info, importing and checking its media) did not finish within ${deadlineMs} ms; nothing was stored. Try again later, or upload large media (POST /api/v2/upload) and post its URL.`,
    { deadlineMs },
  );
}

/**
 * The connections a payload targets (connectionIds, then the groups' connections, each once), and
 * the issues that refuse them (an unknown group, none at all, too many); creates refuse the first.
 */
export async function resolveTargetIds(
  deps: Pick<RouteDeps, "db">,
  accountId: string,
  body: Pick<PostPayloadBody, "connectionIds" | "groupIds">,
): Promise<{ ids: string[]; issues: Array<{ path: string; message: string }> }> {
  const ids = [...(body.connectionIds ?? [])];
  const issues: Array<{ path: string; message: string }> = [];
  if (body.groupIds?.length) {
    const groups = await findGroups(deps.db, accountId, body.groupIds);
    body.groupIds.forEach((groupId, index) => {
      const group = groups.find((g) => g.id === groupId);
      if (!group) issues.push({ path: `groupIds.${index}`, message: "is not one of your groups" });
      else ids.push(...group.connectionIds);
    });
  }
  const unique = [...new Set(ids)];
  if (unique.length === 0 && issues.length === 0) {
    issues.push({ path: "connectionIds", message: "name at least one connection (or a group of them)" });
  }
  if (unique.length > POST_LIMITS.connectionIds) {
    issues.push({
      path: "connectionIds",
      message: `a post targets at most ${POST_LIMITS.connectionIds} connections`,
    });
  }
  return { ids: unique, issues };
}

/** A named connection judged: a target of the post, or why it cannot be one. */
export type ConnectionVerdict =
  | { ok: true; target: { connectionId: string; platform: Platform } }
  | { ok: false; refusal: PublisherError };

/**
 * Whether a named connection can take the post: it must be the account's and active (else 400
 * INVALID_CONNECTION, `reason` unknown or needs_reconnect), and its platform must take the content
 * (else 400 CONTENT_NOT_ACCEPTED: text limits as the platform counts, what media it takes).
 * Without content (the payload was refused) only the connection is judged.
 */
export function judgeConnection(
  connectionId: string,
  connection: ConnectionSummary | undefined,
  content: PostContent | undefined,
): ConnectionVerdict {
  if (!connection) {
    const refusal = new PublisherError(
      "INVALID_CONNECTION",
      `${connectionId} is not one of your connections.`,
      {
        connectionId,
        reason: "unknown",
      },
    );
    return { ok: false, refusal };
  }
  const { platform } = connection;
  if (connection.status !== "active") {
    const refusal = new PublisherError(
      "INVALID_CONNECTION",
      `The ${platform} connection ${connectionId} needs reconnecting before it can publish.`,
      { connectionId, platform, reason: connection.status },
    );
    return { ok: false, refusal };
  }
  const problem = content && contentProblemFor(platform, content);
  if (problem) {
    const refusal = new PublisherError("CONTENT_NOT_ACCEPTED", `${problem} (connection ${connectionId}).`, {
      connectionId,
      platform,
    });
    return { ok: false, refusal };
  }
  return { ok: true, target: { connectionId, platform } };
}

/** The media preflight's refusal as the API answers it (400 with its code and details). */
export const mediaRefusalError = (refusal: MediaRefusal): PublisherError =>
  new PublisherError(refusal.code, refusal.message, refusal.details);

/**
 * A TikTok target's creator, asked now (`creator_info`): the privacy level must be one of the
 * creator's options, and the creator's longest video bounds the video (the media preflight checks
 * it). A connection found dead on this very call (its grant revoked: `invalid_grant` on the
 * refresh, a revoked token) is refused at once; it is already marked `needs_reconnect`, as a
 * worker would have marked it. Any other failure leaves the check to the platform.
 */
export async function tiktokCreatorOf(
  deps: Pick<RouteDeps, "tiktokCreator" | "logger">,
  connectionId: string,
  content: PostContent,
  timeoutMs: number,
): Promise<CreatorLimits | undefined> {
  if (!deps.tiktokCreator) return undefined;
  let creator: TikTokCreatorFacts | undefined;
  try {
    const asked = deps.tiktokCreator(connectionId);
    // A late answer or failure is dropped: the check has moved on without it.
    asked.catch(() => undefined);
    const answer = await withinTime(asked, timeoutMs);
    if (answer === TIMED_OUT) {
      deps.logger.warn({ connectionId, timeoutMs }, "TikTok creator_info too slow; privacy not checked");
      return undefined;
    }
    creator = answer;
  } catch (error) {
    if (error instanceof PlatformError && error.kind === "reconnect") {
      throw new PublisherError(
        "INVALID_CONNECTION",
        `The tiktok connection ${connectionId} needs reconnecting before it can publish: TikTok refused its grant (${error.message}).`,
        { connectionId, platform: "tiktok", reason: "needs_reconnect" },
      );
    }
    // The platform has the last word when publishing; an unreachable creator_info does not block the post.
    deps.logger.warn({ err: error, connectionId }, "TikTok creator_info unavailable; privacy not checked");
    return undefined;
  }
  if (!creator) return undefined;
  const options = creator.privacyLevelOptions;
  if (!options.includes(content.tiktok.privacy)) {
    throw new PublisherError(
      "CONTENT_NOT_ACCEPTED",
      `This TikTok account cannot post with privacy ${content.tiktok.privacy}; use one of ${options.join(", ")}.`,
      { connectionId, platform: "tiktok", allowedPrivacy: options },
    );
  }
  return creator.maxVideoPostDurationSec === undefined
    ? {}
    : { maxVideoPostDurationSec: creator.maxVideoPostDurationSec };
}

/** Where in the request a media item came from, for the issue's `path`. */
export function fieldOf(body: PostPayloadBody): (item: MediaItem, index: number) => string {
  return (item, index) => {
    if (body.videoUrl === item.url) return "videoUrl";
    const listed = body.mediaUrls?.indexOf(item.url) ?? -1;
    if (listed >= 0) return `mediaUrls.${listed}`;
    const typed = body.mediaItems?.findIndex((candidate) => candidate.url === item.url) ?? -1;
    return `mediaItems.${typed >= 0 ? typed : index}`;
  };
}

import { errorResponseSpec } from "@app/core";
import type { MediaItem, Platform, PostContent } from "../contracts/post.ts";
import { contentProblemFor } from "../domain/platform-rules.ts";
import { toPostContent } from "../domain/post-content.ts";
import { POST_LIMITS } from "../domain/post-limits.ts";
import { PublisherError } from "../errors.ts";
import { createLimiter } from "../media/fit/limiter.ts";
import {
  discardImports,
  type ImportedCopy,
  MediaRefusal,
  type PreflightResult,
  type PreflightTarget,
} from "../media/preflight/media-preflight.ts";
import type { CreatorLimits } from "../media/preflight/media-rules.ts";
import { PlatformError } from "../platforms/errors.ts";
import { findAccountConnections } from "../store/account-connections.ts";
import { findGroups } from "../store/groups.ts";
import { recordMedia } from "../store/media.ts";
import type { RouteDeps, TikTokCreatorFacts } from "./deps.ts";
import type { PostPayloadBody } from "./post-payload.ts";

/** The answers a post's checks add to its route's (publish, schedule, queue). */
export const POST_CHECK_RESPONSES = {
  504: errorResponseSpec("The post's checks did not finish in time; nothing was stored (PREFLIGHT_TIMEOUT)"),
} as const;

export type PreparedPost = {
  content: PostContent;
  targets: Array<{ connectionId: string; platform: Platform }>;
};

/** 400 VALIDATION_FAILED with the issues found, as the platform renders them. */
export function invalidPayload(issues: Array<{ path: string; message: string }>): PublisherError {
  return new PublisherError("VALIDATION_FAILED", "The request is not valid in the body.", { issues });
}

const invalid = (path: string, message: string) => invalidPayload([{ path, message }]);

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

/** connectionIds then the groups' connections, each once. */
async function targetIds(deps: RouteDeps, accountId: string, body: PostPayloadBody): Promise<string[]> {
  const ids = [...(body.connectionIds ?? [])];
  if (body.groupIds?.length) {
    const groups = await findGroups(deps.db, accountId, body.groupIds);
    body.groupIds.forEach((groupId, index) => {
      const group = groups.find((g) => g.id === groupId);
      if (!group) throw invalid(`groupIds.${index}`, "is not one of your groups");
      ids.push(...group.connectionIds);
    });
  }
  const unique = [...new Set(ids)];
  if (unique.length === 0)
    throw invalid("connectionIds", "name at least one connection (or a group of them)");
  if (unique.length > POST_LIMITS.connectionIds) {
    throw invalid("connectionIds", `a post targets at most ${POST_LIMITS.connectionIds} connections`);
  }
  return unique;
}

/**
 * A TikTok target's creator, asked now (`creator_info`): the privacy level must be one of the
 * creator's options, and the creator's longest video bounds the video (the media preflight checks
 * it). A connection found dead on this very call (its grant revoked: `invalid_grant` on the
 * refresh, a revoked token) is refused at once; it is already marked `needs_reconnect`, as a
 * worker would have marked it. Any other failure leaves the check to the platform.
 */
async function tiktokCreatorOf(
  deps: RouteDeps,
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
function fieldOf(body: PostPayloadBody): (item: MediaItem, index: number) => string {
  return (item, index) => {
    if (body.videoUrl === item.url) return "videoUrl";
    const listed = body.mediaUrls?.indexOf(item.url) ?? -1;
    if (listed >= 0) return `mediaUrls.${listed}`;
    const typed = body.mediaItems?.findIndex((candidate) => candidate.url === item.url) ?? -1;
    return `mediaItems.${typed >= 0 ? typed : index}`;
  };
}

/** The media preflight's verdict, answered as the API's error when it refuses. */
async function checkMedia(
  deps: RouteDeps,
  accountId: string,
  body: PostPayloadBody,
  content: PostContent,
  targets: PreflightTarget[],
  signal: AbortSignal,
): Promise<PreflightResult> {
  try {
    return await deps.mediaPreflight.check({
      content,
      targets,
      fieldOf: fieldOf(body),
      signal,
      accountId,
    });
  } catch (error) {
    if (!(error instanceof MediaRefusal)) throw error;
    throw new PublisherError(error.code, error.message, error.details);
  }
}

/** The connections named, each the account's, active, and able to take the content; in order. */
function usableConnections(
  ids: readonly string[],
  connections: Awaited<ReturnType<typeof findAccountConnections>>,
  content: PostContent,
): Array<{ connectionId: string; platform: Platform }> {
  return ids.map((connectionId) => {
    const connection = connections.find((c) => c.id === connectionId);
    if (!connection) {
      throw new PublisherError("INVALID_CONNECTION", `${connectionId} is not one of your connections.`, {
        connectionId,
        reason: "unknown",
      });
    }
    if (connection.status !== "active") {
      throw new PublisherError(
        "INVALID_CONNECTION",
        `The ${connection.platform} connection ${connectionId} needs reconnecting before it can publish.`,
        { connectionId, platform: connection.platform, reason: connection.status },
      );
    }
    const problem = contentProblemFor(connection.platform, content);
    if (problem) {
      throw new PublisherError("CONTENT_NOT_ACCEPTED", `${problem} (connection ${connectionId}).`, {
        connectionId,
        platform: connection.platform,
      });
    }
    return { connectionId, platform: connection.platform };
  });
}

/**
 * Each target with its TikTok creator's limits, `creator_info` asked of a few connections at once
 * (each within its own timeout); the first refusal in the targets' order is thrown.
 */
async function withCreators(
  deps: RouteDeps,
  targets: ReadonlyArray<{ connectionId: string; platform: Platform }>,
  content: PostContent,
  limits: CheckLimits,
): Promise<PreflightTarget[]> {
  const limiter = createLimiter(limits.creatorInfoConcurrency);
  const settled = await Promise.allSettled(
    targets.map((target) =>
      target.platform === "tiktok"
        ? limiter.run(() => tiktokCreatorOf(deps, target.connectionId, content, limits.creatorInfoTimeoutMs))
        : Promise.resolve(undefined),
    ),
  );
  return targets.map((target, index) => {
    const outcome = settled[index] as PromiseSettledResult<CreatorLimits | undefined>;
    if (outcome.status === "rejected") throw outcome.reason;
    return outcome.value ? { ...target, creator: outcome.value } : { ...target };
  });
}

/** Records a post's imported copies as the account's media, as uploads are recorded. */
async function recordImports(deps: RouteDeps, accountId: string, imported: readonly ImportedCopy[]) {
  for (const copy of imported) {
    await recordMedia(deps.db, {
      id: copy.path.replace(/\.[a-z0-9]+$/, ""),
      accountId,
      path: copy.path,
      contentType: copy.contentType,
      sizeBytes: copy.sizeBytes,
      complete: true,
    });
  }
}

/**
 * The checks that call other hosts (creator_info, imports) and read media, within
 * `limits.deadlineMs`: past it the request is refused (504 `PREFLIGHT_TIMEOUT`), the checks are
 * called off, and whatever they imported is deleted once they stop.
 */
async function checkWithinDeadline(
  deps: RouteDeps,
  accountId: string,
  body: PostPayloadBody,
  content: PostContent,
  targets: ReadonlyArray<{ connectionId: string; platform: Platform }>,
  limits: CheckLimits,
): Promise<PreflightResult> {
  const deadline = new AbortController();
  const checks = (async () => {
    const withLimits = await withCreators(deps, targets, content, limits);
    deadline.signal.throwIfAborted();
    return checkMedia(deps, accountId, body, content, withLimits, deadline.signal);
  })();
  const outcome = await withinTime(checks, limits.deadlineMs);
  if (outcome !== TIMED_OUT) return outcome;
  deadline.abort();
  // A check that still passes has imported copies nobody will use; a failing one deletes its own.
  checks.then((late) => discardImports(deps.storage, late.imported)).catch(() => undefined);
  throw new PublisherError(
    "PREFLIGHT_TIMEOUT",
    `The post's checks (TikTok creator_info, importing and checking its media) did not finish within ${limits.deadlineMs} ms; nothing was stored. Try again later, or upload large media (POST /api/v2/upload) and post its URL.`,
    { deadlineMs: limits.deadlineMs },
  );
}

/**
 * Turns a post payload into content and targets, or throws the refusal: invalid payload (400
 * VALIDATION_FAILED, a media item whose bytes contradict its declared type included), a
 * connection that is not the account's or not active, or found dead by TikTok now (400
 * INVALID_CONNECTION), content or media a target's platform refuses (400 CONTENT_NOT_ACCEPTED,
 * naming the target, the limit and the value), own media never uploaded (400 MEDIA_NOT_FOUND),
 * checks that take longer than `limits.deadlineMs` (504 PREFLIGHT_TIMEOUT). Media is checked and
 * made to fit before anything is stored as a post; media imported for a refused post is deleted,
 * media imported for an accepted one is recorded as the account's (`publisher.media`).
 */
export async function preparePost(
  deps: RouteDeps,
  accountId: string,
  body: PostPayloadBody,
  limits: Partial<CheckLimits> = {},
): Promise<PreparedPost> {
  const result = toPostContent(body);
  if (!result.ok) throw invalidPayload(result.issues);
  const { content } = result;
  const ids = await targetIds(deps, accountId, body);
  const connections = await findAccountConnections(deps.db, accountId, ids);
  const targets = usableConnections(ids, connections, content);
  const checked = await checkWithinDeadline(deps, accountId, body, content, targets, {
    ...CHECK_LIMITS,
    ...limits,
  });
  try {
    await recordImports(deps, accountId, checked.imported);
  } catch (error) {
    await discardImports(deps.storage, checked.imported);
    throw error;
  }
  return { content: checked.content, targets };
}

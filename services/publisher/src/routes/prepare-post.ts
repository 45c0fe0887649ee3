import { errorResponseSpec } from "@app/core";
import type { Platform, PostContent } from "../contracts/post.ts";
import { toPostContent } from "../domain/post-content.ts";
import { createLimiter } from "../media/fit/limiter.ts";
import {
  discardImports,
  type ImportedCopy,
  MediaRefusal,
  type PreflightResult,
  type PreflightTarget,
} from "../media/preflight/media-preflight.ts";
import type { CreatorLimits } from "../media/preflight/media-rules.ts";
import { findAccountConnections } from "../store/account-connections.ts";
import { recordMedia } from "../store/media.ts";
import type { RouteDeps } from "./deps.ts";
import {
  CHECK_LIMITS,
  type CheckLimits,
  fieldOf,
  invalidPayload,
  judgeConnection,
  mediaRefusalError,
  resolveTargetIds,
  tiktokCreatorOf,
  withinCheckDeadline,
} from "./post-checks.ts";
import type { PostPayloadBody } from "./post-payload.ts";

export { CHECK_LIMITS, type CheckLimits, invalidPayload } from "./post-checks.ts";

/** The answers a post's checks add to its route's (publish, schedule, queue). */
export const POST_CHECK_RESPONSES = {
  504: errorResponseSpec("The post's checks did not finish in time; nothing was stored (PREFLIGHT_TIMEOUT)"),
} as const;

export type PreparedPost = {
  content: PostContent;
  targets: Array<{ connectionId: string; platform: Platform }>;
};

/** The payload's targets, each once; the first issue refuses them all (400 VALIDATION_FAILED). */
async function targetIds(deps: RouteDeps, accountId: string, body: PostPayloadBody): Promise<string[]> {
  const { ids, issues } = await resolveTargetIds(deps, accountId, body);
  const [first] = issues;
  if (first) throw invalidPayload([first]);
  return ids;
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
    throw mediaRefusalError(error);
  }
}

/** The connections named, each the account's, active, and able to take the content; in order. */
function usableConnections(
  ids: readonly string[],
  connections: Awaited<ReturnType<typeof findAccountConnections>>,
  content: PostContent,
): Array<{ connectionId: string; platform: Platform }> {
  return ids.map((connectionId) => {
    const verdict = judgeConnection(
      connectionId,
      connections.find((c) => c.id === connectionId),
      content,
    );
    if (!verdict.ok) throw verdict.refusal;
    return verdict.target;
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
  const settled = await creatorsOf(deps, targets, content, limits);
  return targets.map((target, index) => {
    const outcome = settled[index] as PromiseSettledResult<CreatorLimits | undefined>;
    if (outcome.status === "rejected") throw outcome.reason;
    return outcome.value ? { ...target, creator: outcome.value } : { ...target };
  });
}

/**
 * Each TikTok target's creator limits (`creator_info`, a few connections at once, each within its
 * own timeout) or its refusal; other targets have none.
 */
export function creatorsOf(
  deps: RouteDeps,
  targets: ReadonlyArray<{ connectionId: string; platform: Platform }>,
  content: PostContent,
  limits: CheckLimits,
): Promise<PromiseSettledResult<CreatorLimits | undefined>[]> {
  const limiter = createLimiter(limits.creatorInfoConcurrency);
  return Promise.allSettled(
    targets.map((target) =>
      target.platform === "tiktok"
        ? limiter.run(() => tiktokCreatorOf(deps, target.connectionId, content, limits.creatorInfoTimeoutMs))
        : Promise.resolve(undefined),
    ),
  );
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
function checkWithinDeadline(
  deps: RouteDeps,
  accountId: string,
  body: PostPayloadBody,
  content: PostContent,
  targets: ReadonlyArray<{ connectionId: string; platform: Platform }>,
  limits: CheckLimits,
): Promise<PreflightResult> {
  return withinCheckDeadline(
    limits.deadlineMs,
    async (signal) => {
      const withLimits = await withCreators(deps, targets, content, limits);
      signal.throwIfAborted();
      return checkMedia(deps, accountId, body, content, withLimits, signal);
    },
    // A check that still passes has imported copies nobody will use; a failing one deletes its own.
    (late) => discardImports(deps.storage, late.imported),
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

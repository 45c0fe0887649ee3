import type { MediaItem, Platform, PostContent } from "../contracts/post.ts";
import { contentProblemFor } from "../domain/platform-rules.ts";
import { toPostContent } from "../domain/post-content.ts";
import { POST_LIMITS } from "../domain/post-limits.ts";
import { PublisherError } from "../errors.ts";
import { MediaRefusal, type PreflightTarget } from "../media/preflight/media-preflight.ts";
import type { CreatorLimits } from "../media/preflight/media-rules.ts";
import { PlatformError } from "../platforms/errors.ts";
import { findAccountConnections } from "../store/account-connections.ts";
import { findGroups } from "../store/groups.ts";
import type { RouteDeps, TikTokCreatorFacts } from "./deps.ts";
import type { PostPayloadBody } from "./post-payload.ts";

export type PreparedPost = {
  content: PostContent;
  targets: Array<{ connectionId: string; platform: Platform }>;
};

/** 400 VALIDATION_FAILED with the issues found, as the platform renders them. */
export function invalidPayload(issues: Array<{ path: string; message: string }>): PublisherError {
  return new PublisherError("VALIDATION_FAILED", "The request is not valid in the body.", { issues });
}

const invalid = (path: string, message: string) => invalidPayload([{ path, message }]);

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
): Promise<CreatorLimits | undefined> {
  if (!deps.tiktokCreator) return undefined;
  let creator: TikTokCreatorFacts | undefined;
  try {
    creator = await deps.tiktokCreator(connectionId);
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
  body: PostPayloadBody,
  content: PostContent,
  targets: PreflightTarget[],
): Promise<PostContent> {
  try {
    return await deps.mediaPreflight.check({ content, targets, fieldOf: fieldOf(body) });
  } catch (error) {
    if (!(error instanceof MediaRefusal)) throw error;
    throw new PublisherError(error.code, error.message, error.details);
  }
}

/**
 * Turns a post payload into content and targets, or throws the refusal: invalid payload (400
 * VALIDATION_FAILED, a media item whose bytes contradict its declared type included), a
 * connection that is not the account's or not active, or found dead by TikTok now (400
 * INVALID_CONNECTION), content or media a target's platform refuses (400 CONTENT_NOT_ACCEPTED,
 * naming the target, the limit and the value), own media never uploaded (400 MEDIA_NOT_FOUND).
 * Media is checked and made to fit before anything is stored as a post.
 */
export async function preparePost(
  deps: RouteDeps,
  accountId: string,
  body: PostPayloadBody,
): Promise<PreparedPost> {
  const result = toPostContent(body);
  if (!result.ok) throw invalidPayload(result.issues);
  const { content } = result;
  const ids = await targetIds(deps, accountId, body);
  const connections = await findAccountConnections(deps.db, accountId, ids);
  const targets: PreflightTarget[] = [];
  for (const connectionId of ids) {
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
    const creator =
      connection.platform === "tiktok" ? await tiktokCreatorOf(deps, connectionId, content) : undefined;
    targets.push({ connectionId, platform: connection.platform, ...(creator ? { creator } : {}) });
  }
  const checked = await checkMedia(deps, body, content, targets);
  return {
    content: checked,
    targets: targets.map(({ connectionId, platform }) => ({ connectionId, platform })),
  };
}

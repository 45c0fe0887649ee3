import type { Platform, PostContent } from "../contracts/post.ts";
import { contentProblemFor } from "../domain/platform-rules.ts";
import { toPostContent } from "../domain/post-content.ts";
import { POST_LIMITS } from "../domain/post-limits.ts";
import { PublisherError } from "../errors.ts";
import { findAccountConnections } from "../store/account-connections.ts";
import { findGroups } from "../store/groups.ts";
import type { RouteDeps } from "./deps.ts";
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

async function checkTikTokPrivacy(
  deps: RouteDeps,
  connectionId: string,
  content: PostContent,
): Promise<void> {
  if (!deps.creatorPrivacyOptions) return;
  let options: readonly string[] | undefined;
  try {
    options = await deps.creatorPrivacyOptions(connectionId);
  } catch (error) {
    // The platform has the last word when publishing; an unreachable creator_info does not block the post.
    deps.logger.warn({ err: error, connectionId }, "TikTok creator_info unavailable; privacy not checked");
    return;
  }
  if (options && !options.includes(content.tiktok.privacy)) {
    throw new PublisherError(
      "CONTENT_NOT_ACCEPTED",
      `This TikTok account cannot post with privacy ${content.tiktok.privacy}; use one of ${options.join(", ")}.`,
      { connectionId, platform: "tiktok", allowedPrivacy: options },
    );
  }
}

/** Media at this service's own URLs must have been uploaded completely. */
async function checkOwnMedia(deps: RouteDeps, content: PostContent): Promise<void> {
  for (const item of content.mediaItems) {
    const path = deps.storage.pathOf(item.url);
    if (path !== undefined && !(await deps.storage.exists(path))) {
      throw new PublisherError("MEDIA_NOT_FOUND", "Nothing was uploaded at this media URL (yet).", {
        url: item.url,
      });
    }
  }
}

/**
 * Turns a post payload into content and targets, or throws the refusal: invalid payload (400
 * VALIDATION_FAILED), a connection that is not the account's or not active (400
 * INVALID_CONNECTION), content a target's platform refuses (400 CONTENT_NOT_ACCEPTED, naming the
 * target), own media never uploaded (400 MEDIA_NOT_FOUND).
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
  const targets: PreparedPost["targets"] = [];
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
    if (connection.platform === "tiktok") await checkTikTokPrivacy(deps, connectionId, content);
    targets.push({ connectionId, platform: connection.platform });
  }
  await checkOwnMedia(deps, content);
  return { content, targets };
}

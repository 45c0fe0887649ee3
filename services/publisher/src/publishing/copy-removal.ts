import { AtUri } from "@atproto/syntax";
import { withAccessToken } from "../connections/token-vault.ts";
import type { CopyRemoval, PublishedCopy } from "../contracts/publishing.ts";
import { platformWithoutDelete } from "../domain/copy-removal.ts";
import { POST_COLLECTION } from "../platforms/bluesky/bluesky-client.ts";
import { PlatformError } from "../platforms/errors.ts";
import type { PlatformPublisherDeps } from "./run-context.ts";

/** What removing a copy needs: the platforms' adapters and the connections' tokens. */
export type CopyRemovalDeps = Pick<PlatformPublisherDeps, "adapters" | "vault">;

/**
 * Removes a published copy from its platform: YouTube `videos.delete` of the video id, Bluesky
 * `com.atproto.repo.deleteRecord` of the post's record (its AT URI names the repo and key), each
 * with the connection's token, refreshed and tried once more when the platform refuses it. TikTok
 * is answered at once (no delete API). A platform's refusal, a connection needing reconnection, a
 * grant without the delete permission and a platform that cannot answer now are answers (the copy
 * stays, and why), never throws.
 */
export async function removePublishedCopy(deps: CopyRemovalDeps, copy: PublishedCopy): Promise<CopyRemoval> {
  const unsupported = platformWithoutDelete(copy.platform);
  if (unsupported) return unsupported;
  try {
    if (copy.platform === "youtube") {
      const outcome = await withAccessToken(deps.vault, copy.connectionId, ({ secrets }) =>
        deps.adapters.youtube.deleteVideo(secrets.accessToken, copy.platformPostId),
      );
      return { deleted: true, alreadyGone: outcome === "not_found" };
    }
    const record = postRecordOf(copy.platformPostId);
    if (!record) {
      return {
        deleted: false,
        code: "REFUSED",
        reason: `${copy.platformPostId} is not the AT URI of a post.`,
      };
    }
    await withAccessToken(deps.vault, copy.connectionId, ({ secrets }) =>
      deps.adapters.bluesky.deleteRecord(secrets.service ?? "", secrets.accessToken, record),
    );
    // A PDS answers a record that is not there as it answers a delete: it is gone either way.
    return { deleted: true, alreadyGone: false };
  } catch (error) {
    if (error instanceof PlatformError) return keptAfter(error);
    throw error;
  }
}

/** The repo and record key of a Bluesky post's AT URI (`at://<did>/app.bsky.feed.post/<rkey>`). */
function postRecordOf(uri: string): { repo: string; rkey: string } | undefined {
  try {
    const parsed = new AtUri(uri);
    return parsed.collection === POST_COLLECTION && parsed.rkey
      ? { repo: parsed.host, rkey: parsed.rkey }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Google's reasons for a token whose grant lacks the scope a call needs. */
const SCOPE_REASONS = new Set(["insufficientPermissions", "ACCESS_TOKEN_SCOPE_INSUFFICIENT"]);

/** Why a copy stays after the platform's refusal. */
function keptAfter(error: PlatformError): CopyRemoval {
  if (error.kind === "reconnect") {
    return {
      deleted: false,
      code: "RECONNECT_REQUIRED",
      reason: `The connection must be connected again before its posts can be deleted (${error.describe()}).`,
    };
  }
  if (SCOPE_REASONS.has(error.reason)) {
    return {
      deleted: false,
      code: "PERMISSION_MISSING",
      reason: `The ${error.platform} connection was granted without the permission to delete (${error.describe()}): connect it again to grant it.`,
    };
  }
  if (error.kind === "transient") {
    return { deleted: false, code: "UNAVAILABLE", reason: `${error.describe()} Try again later.` };
  }
  return { deleted: false, code: "REFUSED", reason: error.describe() };
}

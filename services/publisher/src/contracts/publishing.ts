import type { Platform, TargetOutcome } from "./post.ts";

/** A published copy of a post on a platform: what the API asks publishing to remove. */
export type PublishedCopy = { connectionId: string; platform: Platform; platformPostId: string };

/**
 * Why a published copy stays where it is: the platform has no delete (`NOT_SUPPORTED`), the
 * connection must be connected again (`RECONNECT_REQUIRED`), the connection's grant does not
 * allow deleting (`PERMISSION_MISSING`), the platform refused (`REFUSED`) or could not answer now
 * (`UNAVAILABLE`: try again).
 */
export type CopyKeptCode =
  | "NOT_SUPPORTED"
  | "RECONNECT_REQUIRED"
  | "PERMISSION_MISSING"
  | "REFUSED"
  | "UNAVAILABLE";

/** What became of one copy: removed (`alreadyGone` when the platform no longer had it), or kept and why. */
export type CopyRemoval =
  | { deleted: true; alreadyGone: boolean }
  | { deleted: false; code: CopyKeptCode; reason: string };

/**
 * What the API asks of publishing. Targets are rows of `post_targets` written by the API with the
 * post (status `scheduled`, `due_at` = when); publishing claims and runs them.
 */
export interface Publishing {
  /**
   * Runs a post's due targets now, in this process, and waits up to `timeoutMs` for their
   * outcomes (publish-now). Targets still running when it returns stay with the workers.
   */
  publishNow(postId: string, timeoutMs: number): Promise<TargetOutcome[]>;
  /**
   * Cancels a scheduled post's targets that no worker has claimed (conditional update); true when
   * the post was scheduled and nothing of it had started.
   */
  cancel(postId: string): Promise<boolean>;
  /**
   * Removes a published copy from its platform where the platform allows it (YouTube
   * `videos.delete`, Bluesky `com.atproto.repo.deleteRecord`), with the connection's token
   * (refreshed once when the platform refuses it). TikTok has no delete API: answered so, never
   * attempted. A platform's refusal is an answer, not a throw.
   */
  removePublished(copy: PublishedCopy): Promise<CopyRemoval>;
}

/**
 * Reads media for publishing: the service's own storage by path (its public URLs map to paths),
 * or any other URL fetched with the SSRF guards (http(s) only, no loopback / private / link-local /
 * metadata addresses after DNS, each redirect re-checked, 512 MB cap, timeouts, type sniffed).
 */
export interface MediaReader {
  open(url: string): Promise<{ stream: NodeJS.ReadableStream; size: number; contentType: string }>;
}

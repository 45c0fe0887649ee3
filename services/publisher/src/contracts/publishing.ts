import type { TargetOutcome } from "./post.ts";

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
}

/**
 * Reads media for publishing: the service's own storage by path (its public URLs map to paths),
 * or any other URL fetched with the SSRF guards (http(s) only, no loopback / private / link-local /
 * metadata addresses after DNS, each redirect re-checked, 512 MB cap, timeouts, type sniffed).
 */
export interface MediaReader {
  open(url: string): Promise<{ stream: NodeJS.ReadableStream; size: number; contentType: string }>;
}

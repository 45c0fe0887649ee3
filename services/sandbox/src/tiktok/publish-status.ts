import type { PublishStatus, TikTokPost } from "./state.ts";

/** What `status/fetch` answers for a post. */
export type StatusView = {
  status: PublishStatus;
  failReason: string | null;
  publicPostIds: string[];
  uploadedBytes: number;
  downloadedBytes: number;
};

/** True once the media is all there (uploaded or pulled). */
export function transferComplete(post: TikTokPost): boolean {
  if (post.source === "PULL_FROM_URL") return post.pullFailure === null;
  return post.digest !== null && post.plan !== null && post.digest.bytes === post.plan.videoSize;
}

/**
 * The post's status, from its transfer and its outcome: PROCESSING_UPLOAD while chunks are
 * missing; FAILED when the pull failed; then PROCESSING_UPLOAD or PROCESSING_DOWNLOAD for
 * `processingPolls` fetches (forever when the outcome is `stuck`); then FAILED with the outcome's
 * reason, SEND_TO_USER_INBOX (inbox uploads) or PUBLISH_COMPLETE (direct posts).
 */
export function statusOf(post: TikTokPost): StatusView {
  const transferred = post.fetched.reduce((sum, media) => sum + media.bytes, 0);
  const base = {
    failReason: null,
    publicPostIds: [] as string[],
    uploadedBytes: post.source === "FILE_UPLOAD" ? (post.digest?.bytes ?? 0) : 0,
    downloadedBytes: post.source === "PULL_FROM_URL" ? transferred : 0,
  };
  const processing: PublishStatus =
    post.source === "FILE_UPLOAD" ? "PROCESSING_UPLOAD" : "PROCESSING_DOWNLOAD";
  if (post.pullFailure !== null) return { ...base, status: "FAILED", failReason: post.pullFailure };
  if (!transferComplete(post)) return { ...base, status: "PROCESSING_UPLOAD" };
  if (post.outcome.kind === "stuck" || post.pollsSinceTransfer < post.processingPolls) {
    return { ...base, status: processing };
  }
  if (post.outcome.kind === "fail") return { ...base, status: "FAILED", failReason: post.outcome.reason };
  if (post.mode === "MEDIA_UPLOAD") return { ...base, status: "SEND_TO_USER_INBOX" };
  return { ...base, status: "PUBLISH_COMPLETE", publicPostIds: post.publicPostId ? [post.publicPostId] : [] };
}

/** Answers one status fetch (counted), settling the post's public id and completion time when it turns final. */
export function recordStatusFetch(post: TikTokPost, now: Date): StatusView {
  let view = statusOf(post);
  if (transferComplete(post)) post.pollsSinceTransfer += 1;
  const final = view.status === "PUBLISH_COMPLETE" || view.status === "SEND_TO_USER_INBOX";
  if (final && post.completedAt === null) {
    post.completedAt = now.toISOString();
    if (view.status === "PUBLISH_COMPLETE") {
      post.publicPostId = String(7_000_000_000_000_000_000n + BigInt(Math.floor(Math.random() * 1e15)));
      view = statusOf(post);
    }
  }
  return view;
}

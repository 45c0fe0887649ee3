import type { PostStatus, TargetStatus } from "../contracts/post.ts";

/**
 * A post's status from its targets': `published` when all published, `failed` when all failed,
 * `partial` when some published and some failed with none left running, `publishing` while any
 * runs, `scheduled` while all wait, `draft` when all were canceled (or there are none).
 */
export function derivePostStatus(targets: readonly TargetStatus[]): PostStatus {
  const live = targets.filter((status) => status !== "canceled");
  if (live.length === 0) return "draft";
  if (live.every((status) => status === "scheduled")) return "scheduled";
  if (live.some((status) => status === "scheduled" || status === "publishing")) return "publishing";
  const published = live.filter((status) => status === "published").length;
  if (published === live.length) return "published";
  return published === 0 ? "failed" : "partial";
}

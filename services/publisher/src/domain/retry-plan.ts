import type { Platform, TargetStatus } from "../contracts/post.ts";

/**
 * What a failed target's saved platform handle proves about the platform (the handle is saved
 * before each irreversible call: see src/publishing/*-publisher.ts):
 * - `nothing_sent`: no handle (or an emptied one), or a TikTok video `init` whose bytes never
 *   went (TikTok publishes nothing before the last byte, and the publisher itself makes such an
 *   `init` again);
 * - `same_copy`: the handle pins the one copy a re-run can make, and the re-run looks for it first
 *   (Bluesky: the record key chosen before `createRecord`; the re-run reads the record at that
 *   key, and a second `createRecord` at the same key is refused): retrying cannot post twice;
 * - `unknown`: the platform may hold the post: a YouTube upload session was opened (the video
 *   exists once its last byte arrived, and a session that has since expired no longer says
 *   whether it did), a TikTok photo `init` whose answer was lost, a TikTok publish id that was
 *   uploading or processing (it may still appear).
 */
export type HandleEvidence = "nothing_sent" | "same_copy" | "unknown";

/** A failed target as the retry reads it. */
export type RetryCandidate = {
  id: string;
  connectionId: string;
  platform: Platform;
  status: TargetStatus;
  /** The saved handle as stored (its sealed fields are only looked at for presence). */
  platformHandle: Record<string, unknown> | null;
};

const isEmpty = (handle: Record<string, unknown> | null): boolean =>
  handle === null || Object.keys(handle).length === 0;

/** What the saved handle of a target on `platform` proves (see {@link HandleEvidence}). */
export function handleEvidence(platform: Platform, handle: Record<string, unknown> | null): HandleEvidence {
  if (isEmpty(handle)) return "nothing_sent";
  switch (platform) {
    case "bluesky":
      return typeof handle?.rkey === "string" ? "same_copy" : "unknown";
    case "tiktok":
      return handle?.phase === "initiating" && handle.kind === "video" && handle.publishId === undefined
        ? "nothing_sent"
        : "unknown";
    case "youtube":
      return "unknown";
  }
}

const PLATFORM_NAMES: Record<Platform, string> = { youtube: "YouTube", tiktok: "TikTok", bluesky: "Bluesky" };

/** Why a target's evidence is what it is, in words a caller can act on (answers and the history). */
export function explainEvidence(platform: Platform, evidence: HandleEvidence): string {
  const name = PLATFORM_NAMES[platform];
  if (evidence === "nothing_sent") return `Nothing that ${name} could publish was sent to it.`;
  if (evidence === "same_copy") {
    return "Its record key was chosen before the post was written: a retry reads that record first and cannot post twice.";
  }
  if (platform === "youtube") {
    return "An upload session was opened: YouTube made the video if its last byte arrived. Check the channel before forcing a retry.";
  }
  return `The post was handed to ${name} and its outcome is not known: it may be on the account. Check there before forcing a retry.`;
}

/** One target a retry runs again; `dropHandle`: it starts over (forced past an unknown outcome). */
export type PlannedRetry = {
  id: string;
  connectionId: string;
  platform: Platform;
  evidence: HandleEvidence;
  dropHandle: boolean;
};

/** What a retry request comes to. */
export type RetryPlan =
  | { kind: "run"; targets: PlannedRetry[] }
  /**
   * Not every target asked for failed: `notFailed` (asked for, or all, that did not fail) and
   * `notTargets` (connection ids asked for that are none of the post's).
   */
  | { kind: "nothing_failed"; notFailed: RetryCandidate[]; notTargets: string[] }
  /** Some targets' outcome is unknown and the caller did not force: nothing is run. */
  | { kind: "outcome_unknown"; unknown: PlannedRetry[] };

/**
 * Plans a retry of a post's failed targets (of `connectionIds` only, when given, each of which
 * must name a failed target): all of them run again, or none. A target whose outcome is unknown stops the retry unless `force`; forced, it
 * starts over with its handle dropped (it may then make a second copy: the caller said the
 * platform has none). A target whose handle pins its one copy keeps the handle.
 */
export function planRetry(
  targets: readonly RetryCandidate[],
  options: { force: boolean; connectionIds?: readonly string[] },
): RetryPlan {
  const wanted = options.connectionIds;
  const asked = wanted ? targets.filter((target) => wanted.includes(target.connectionId)) : targets;
  const notTargets = (wanted ?? []).filter((id) => !targets.some((target) => target.connectionId === id));
  const failed = asked.filter((target) => target.status === "failed");
  const notFailed = asked.filter((target) => target.status !== "failed");
  if (failed.length === 0 || (wanted && (notFailed.length > 0 || notTargets.length > 0))) {
    return { kind: "nothing_failed", notFailed, notTargets };
  }
  const planned = failed.map((target): PlannedRetry => {
    const evidence = handleEvidence(target.platform, target.platformHandle);
    return {
      id: target.id,
      connectionId: target.connectionId,
      platform: target.platform,
      evidence,
      dropHandle: evidence === "unknown",
    };
  });
  const unknown = planned.filter((target) => target.evidence === "unknown");
  if (unknown.length > 0 && !options.force) return { kind: "outcome_unknown", unknown };
  return { kind: "run", targets: planned };
}

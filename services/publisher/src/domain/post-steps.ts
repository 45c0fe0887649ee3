/**
 * The steps of a post's history (`GET /api/v1/posts/{id}/events`), finer than its events. Each
 * names what happened to one target, with facts in its `detail` (never a token or a secret):
 *
 * - `claimed`: a worker took the target (`workerId`, `attempt`, `resumed` when an earlier run left
 *   a saved handle to go on from).
 * - `handle_saved`: the platform's handle was saved before an irreversible call (`workerId`,
 *   `handle`: its public fields, e.g. TikTok's `phase` and `publishId`, Bluesky's `rkey`; the
 *   upload URLs only by name, under `kept`; `cleared` when it was emptied).
 * - `upload_progress`: bytes sent to the platform (`sentBytes`, `totalBytes`), at most once per
 *   tenth of the upload.
 * - `claim_lost`: the worker found its claim gone (its lease ran out) and stopped.
 * - `lease_expired`: the sweeper handed back a claim whose lease ran out (`formerWorker`); the
 *   next worker resumes from the saved handle.
 * - `retry_scheduled`: a turn failed and runs again (`answer`: the platform's code and message,
 *   `attempt`, `delayMs`, `runAt`).
 * - `published` / `failed`: the outcome (`platformPostId` and `url`, or `error` and `answer`).
 * - `retry_requested`: the caller retried a failed target (`POST /api/v1/posts/{id}/retry`:
 *   `evidence` and its `explanation`, `forced` and the caller's `reason`, `handleDropped`,
 *   `previousError`, `previousAttempts`).
 * - `deleted_on_platform`: the published copy was removed from its platform
 *   (`DELETE /api/v1/posts/{id}/published`: `platformPostId`, `alreadyGone`).
 * - `edited`: the scheduled post was edited (`PATCH /api/v1/posts/{id}`; of the post, no target:
 *   `parts` changed, `scheduledFor` `{from, to}`, `targets` `{added, removed}` connection ids).
 */
export const POST_STEP_NAMES = [
  "claimed",
  "handle_saved",
  "upload_progress",
  "claim_lost",
  "lease_expired",
  "retry_scheduled",
  "published",
  "failed",
  "retry_requested",
  "deleted_on_platform",
  "edited",
] as const;

export type PostStepName = (typeof POST_STEP_NAMES)[number];

/** Progress is recorded at most this many times per upload (plus its last chunk). */
export const UPLOAD_PROGRESS_MARKS = 10;

/**
 * Whether a chunk that brought an upload from `before` to `after` of `total` bytes crossed one of
 * the {@link UPLOAD_PROGRESS_MARKS} marks (each tenth), or finished it: the progress is then
 * recorded, so an upload's history holds a bounded number of progress steps however many chunks.
 */
export function crossesProgressMark(before: number, after: number, total: number): boolean {
  if (total <= 0 || after <= before) return false;
  if (after >= total) return true;
  const mark = (bytes: number) => Math.floor((bytes * UPLOAD_PROGRESS_MARKS) / total);
  return mark(after) > mark(before);
}

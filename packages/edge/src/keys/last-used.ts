/**
 * How fine a key's `last_used_at` is kept: it is touched at most once in this long, so a key in
 * constant use costs one write a minute, not one per request.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Whether a key last marked used at `lastUsedAt` (null: never) should be marked used at `now`. */
export function lastUsedIsStale(lastUsedAt: Date | null, now: Date): boolean {
  return lastUsedAt === null || now.getTime() - lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS;
}

/** When this process last sent a mark, by key: at most one a minute per key per process, whatever the burst. */
const sentAt = new Map<string, number>();

/** Keys whose marks this process remembers; the oldest are forgotten beyond it. */
const MAX_REMEMBERED = 10_000;

const inFlight = new Set<Promise<void>>();

/** One key's mark to send, if it is due. */
export type LastUseMark = {
  /** The key, unique across tables (`publisher.api_keys:key_…`). */
  key: string;
  /** Its `last_used_at` as the lookup read it. */
  lastUsedAt: Date | null;
  now: Date;
  /** Writes the mark (a conditional update, so instances marking one key together write it once). */
  write(): Promise<unknown>;
  /** Told when the write fails: the request it came with has its answer already. */
  onError?(error: unknown): void;
};

/**
 * Marks a key used, off the request's path: the write is started and not awaited, and a failure
 * (a read-only standby, a lock timeout) is reported to `onError` rather than refusing the request
 * of a valid key. Sent only when the key's mark is a minute old and this process has sent none for
 * it in the last minute, so a burst on a cold key costs one write, not one per request.
 */
export function markUsedInBackground(mark: LastUseMark): void {
  const now = mark.now.getTime();
  if (!lastUsedIsStale(mark.lastUsedAt, mark.now)) return;
  const previous = sentAt.get(mark.key);
  if (previous !== undefined && now - previous < LAST_USED_RESOLUTION_MS && now >= previous) return;
  sentAt.delete(mark.key);
  if (sentAt.size >= MAX_REMEMBERED) {
    const oldest = sentAt.keys().next().value;
    if (oldest !== undefined) sentAt.delete(oldest);
  }
  sentAt.set(mark.key, now);
  const written: Promise<void> = mark
    .write()
    .then(
      () => undefined,
      (error: unknown) => mark.onError?.(error),
    )
    .finally(() => inFlight.delete(written));
  inFlight.add(written);
}

/** Resolves once every mark sent so far is written or has failed (tests, and a clean shutdown). */
export async function lastUseMarksSettled(): Promise<void> {
  await Promise.all([...inFlight]);
}

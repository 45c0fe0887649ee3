/**
 * How fine a key's `last_used_at` is kept: it is touched at most once in this long, so a key in
 * constant use costs one write a minute, not one per request.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Whether a key last marked used at `lastUsedAt` (null: never) should be marked used at `now`. */
export function lastUsedIsStale(lastUsedAt: Date | null, now: Date): boolean {
  return lastUsedAt === null || now.getTime() - lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS;
}

import type { StoredBlob } from "./state.ts";

/**
 * How long a blob no record references is kept: one hour. An upload is temporary until a record
 * references it, and a PDS deletes temporary blobs after "an appropriate time span" (the blob
 * spec, atproto.com/specs/blob, which makes one hour "a firm lower bound"; the `uploadBlob`
 * lexicon: "deleted if it is not referenced within a time window").
 */
export const TEMP_BLOB_TTL_MS = 60 * 60 * 1000;

/**
 * The most blob bytes the twin holds in memory, every account of both PDSes together: 256 MiB,
 * or one upload at the upload limit when that is more. Temporary blobs give way to new uploads,
 * oldest first; blobs records reference are never dropped for room.
 */
export const BLOB_MEMORY_BUDGET_BYTES = 256 * 1024 * 1024;

/** The budget with an upload limit of `uploadLimitBytes`: never too small for one upload. */
export const blobBudgetBytes = (uploadLimitBytes: number) =>
  Math.max(BLOB_MEMORY_BUDGET_BYTES, uploadLimitBytes);

export type RetentionLimits = {
  /** The time now, in epoch milliseconds. */
  now: number;
  tempTtlMs: number;
  budgetBytes: number;
};

/** The bytes the blobs keep in memory. */
export function heldBlobBytes(blobs: Iterable<StoredBlob>): number {
  let total = 0;
  for (const blob of blobs) total += blob.size;
  return total;
}

/**
 * Drops the temporary blobs (keys not in `referenced`) uploaded more than `tempTtlMs` ago,
 * as a PDS's clean-up of unreferenced uploads does.
 */
export function dropExpiredBlobs(
  blobs: Map<string, StoredBlob>,
  referenced: ReadonlySet<string>,
  limits: Pick<RetentionLimits, "now" | "tempTtlMs">,
): void {
  for (const [key, blob] of blobs) {
    if (!referenced.has(key) && limits.now - Date.parse(blob.uploadedAt) >= limits.tempTtlMs)
      blobs.delete(key);
  }
}

/**
 * Makes room for a blob of `incomingBytes` within the budget: drops what has expired, then
 * temporary blobs oldest first until the new one fits. False (nothing referenced dropped) when
 * the blobs records reference leave no room for it.
 */
export function makeRoomForBlob(
  blobs: Map<string, StoredBlob>,
  referenced: ReadonlySet<string>,
  incomingBytes: number,
  limits: RetentionLimits,
): boolean {
  dropExpiredBlobs(blobs, referenced, limits);
  const referencedBytes = heldBlobBytes(
    [...blobs].filter(([key]) => referenced.has(key)).map(([, blob]) => blob),
  );
  if (referencedBytes + incomingBytes > limits.budgetBytes) return false;
  const temporary = [...blobs]
    .filter(([key]) => !referenced.has(key))
    .sort(([, a], [, b]) => Date.parse(a.uploadedAt) - Date.parse(b.uploadedAt));
  let held = heldBlobBytes(blobs.values());
  for (const [key, blob] of temporary) {
    if (held + incomingBytes <= limits.budgetBytes) break;
    blobs.delete(key);
    held -= blob.size;
  }
  return true;
}

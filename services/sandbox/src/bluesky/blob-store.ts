import type { SandboxContext } from "../context.ts";
import { PlatformFailure } from "../kit/failure.ts";
import {
  blobBudgetBytes,
  dropExpiredBlobs,
  makeRoomForBlob,
  type RetentionLimits,
  TEMP_BLOB_TTL_MS,
} from "./blob-retention.ts";
import { blobKey, type StoredBlob } from "./state.ts";

/** The keys ({@link blobKey}) of the blobs a record references: the permanent ones. */
export function referencedBlobKeys(ctx: SandboxContext): Set<string> {
  const keys = new Set<string>();
  for (const record of ctx.bluesky.records.values()) {
    for (const cid of record.blobs) keys.add(blobKey(record.did, cid));
  }
  return keys;
}

function limits(ctx: SandboxContext): RetentionLimits {
  return {
    now: ctx.kit.clock.now().getTime(),
    tempTtlMs: TEMP_BLOB_TTL_MS,
    budgetBytes: blobBudgetBytes(ctx.settings.bluesky.blobLimitBytes),
  };
}

const storageFull = (bytes: number, budget: number) =>
  new PlatformFailure(
    413,
    "PayloadTooLarge",
    `Blob storage is full: the sandbox keeps at most ${budget} bytes of blobs in memory and records reference too many of them to take ${bytes} more (delete records, or reset the sandbox)`,
    { Connection: "close" },
  );

/** Drops the uploads no record referenced within the hour (done before a write looks its blobs up). */
export function dropExpiredUploads(ctx: SandboxContext): void {
  dropExpiredBlobs(ctx.bluesky.blobs, referencedBlobKeys(ctx), limits(ctx));
}

/**
 * Makes room for an upload of `bytes` before it is read (its declared length), so that a blob
 * that cannot be kept is refused before it takes memory: 413 `PayloadTooLarge` when records
 * reference so much that it cannot fit.
 */
export function makeRoomForUpload(ctx: SandboxContext, bytes: number): void {
  const retention = limits(ctx);
  if (!makeRoomForBlob(ctx.bluesky.blobs, referencedBlobKeys(ctx), bytes, retention)) {
    throw storageFull(bytes, retention.budgetBytes);
  }
}

/**
 * Keeps an uploaded blob (temporary until a record references it), within the memory budget:
 * expired and then the oldest temporary blobs give way; 413 `PayloadTooLarge` when the blobs
 * records reference leave no room. The same bytes uploaded again by the same account replace
 * the blob (a temporary one starts its hour again).
 */
export function keepUploadedBlob(ctx: SandboxContext, blob: StoredBlob): void {
  const { blobs } = ctx.bluesky;
  const key = blobKey(blob.did, blob.cid);
  const previous = blobs.get(key);
  blobs.delete(key);
  const retention = limits(ctx);
  if (!makeRoomForBlob(blobs, referencedBlobKeys(ctx), blob.size, retention)) {
    if (previous) blobs.set(key, previous);
    throw storageFull(blob.size, retention.budgetBytes);
  }
  blobs.set(key, blob);
}

/**
 * Deletes the blobs of `did` among `cids` that no record references any more, as a PDS deletes a
 * blob with the last record of the repository referencing it (on a delete, or an update that
 * drops it).
 */
export function dropDereferencedBlobs(ctx: SandboxContext, did: string, cids: readonly string[]): void {
  if (cids.length === 0) return;
  const referenced = referencedBlobKeys(ctx);
  for (const cid of cids) {
    const key = blobKey(did, cid);
    if (!referenced.has(key)) ctx.bluesky.blobs.delete(key);
  }
}

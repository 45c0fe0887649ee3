import type { SandboxContext } from "../context.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { dropDereferencedBlobs } from "./blob-store.ts";
import { newTid } from "./identifiers.ts";
import { cidOfLexValue, recordCid } from "./record-cid.ts";
import type { PreparedRecord } from "./record-validation.ts";
import { blobKey, type StoredRecord } from "./state.ts";

/** A repository's current commit: what `commit` answers and `swapCommit` compares with. */
export type RepoHead = { cid: string; rev: string };

/**
 * Repository heads by DID, kept beside the records they describe: keyed by the records map, so
 * a reset (which replaces that map) forgets them with the records.
 */
const headsByRecords = new WeakMap<Map<string, StoredRecord>, Map<string, RepoHead>>();

function heads(ctx: SandboxContext): Map<string, RepoHead> {
  let found = headsByRecords.get(ctx.bluesky.records);
  if (!found) {
    found = new Map();
    headsByRecords.set(ctx.bluesky.records, found);
  }
  return found;
}

export const recordUri = (did: string, collection: string, rkey: string) =>
  `at://${did}/${collection}/${rkey}`;

/** The records of a repository (optionally one collection), by record key ascending. */
export function recordsOf(ctx: SandboxContext, did: string, collection?: string): StoredRecord[] {
  return [...ctx.bluesky.records.values()]
    .filter((record) => record.did === did && (collection === undefined || record.collection === collection))
    .sort((a, b) => (a.rkey < b.rkey ? -1 : a.rkey > b.rkey ? 1 : 0));
}

/** `swapCommit`: the write applies only if the repository is still at that commit (else 400 InvalidSwap). */
export function checkSwapCommit(ctx: SandboxContext, did: string, swapCommit: unknown): void {
  if (typeof swapCommit !== "string") return;
  const head = heads(ctx).get(did);
  if (head?.cid !== swapCommit) {
    throw new PlatformFailure(400, "InvalidSwap", `Commit was at ${head?.cid ?? "null"}`);
  }
}

/**
 * Each blob a record references must be one this repository uploaded (400 BlobNotFound), and the
 * ref must say the stored blob's type and size (400 InvalidMimeType / InvalidSize), as a PDS
 * checks when it makes the blob permanent.
 */
export function verifyRecordBlobs(ctx: SandboxContext, did: string, prepared: PreparedRecord): void {
  for (const ref of prepared.blobs) {
    const stored = ctx.bluesky.blobs.get(blobKey(did, ref.cid));
    if (!stored) throw new PlatformFailure(400, "BlobNotFound", `Could not find blob: ${ref.cid}`);
    if (stored.mimeType !== ref.mimeType) {
      throw new PlatformFailure(
        400,
        "InvalidMimeType",
        `Referenced Mimetype does not match stored blob. Expected: ${stored.mimeType}, Got: ${ref.mimeType}`,
      );
    }
    if (stored.size !== ref.size) {
      throw new PlatformFailure(
        400,
        "InvalidSize",
        `Referenced Size does not match stored blob. Expected: ${stored.size}, Got: ${ref.size}`,
      );
    }
  }
}

/** A new commit of a repository: a later revision, and a CID over the repository's records. */
async function commit(ctx: SandboxContext, did: string): Promise<RepoHead> {
  const rev = newTid(ctx.kit.clock.now());
  const data = recordsOf(ctx, did).map((record) => [record.uri, record.cid]);
  const head = { cid: (await cidOfLexValue({ did, version: 3, rev, data, prev: null })).toString(), rev };
  heads(ctx).set(did, head);
  return head;
}

/**
 * Stores a prepared record at its key (creating or replacing it) and commits. A blob the
 * replaced record referenced and no record references now is deleted, as on a PDS.
 */
export async function writeRecord(
  ctx: SandboxContext,
  target: { did: string; collection: string; rkey: string },
  prepared: PreparedRecord,
): Promise<{ record: StoredRecord; commit: RepoHead }> {
  const uri = recordUri(target.did, target.collection, target.rkey);
  const cid = await recordCid(prepared.value);
  const previous = ctx.bluesky.records.get(uri);
  const now = ctx.kit.clock.now().toISOString();
  const record: StoredRecord = {
    uri,
    cid,
    did: target.did,
    collection: target.collection,
    rkey: target.rkey,
    value: prepared.value,
    validationStatus: prepared.validationStatus,
    blobs: [...new Set(prepared.blobs.map((blob) => blob.cid))],
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
  };
  // Checked again with no await before the write: an upload made meanwhile may have pushed out a
  // blob that was still temporary (blob-retention.ts).
  verifyRecordBlobs(ctx, target.did, prepared);
  ctx.bluesky.records.set(uri, record);
  dropDereferencedBlobs(ctx, target.did, previous?.blobs ?? []);
  return { record, commit: await commit(ctx, target.did) };
}

/**
 * Deletes a record and commits; nothing (no commit) when there is no such record, as a PDS
 * answers. Its blobs that no other record of the repository references are deleted with it.
 */
export async function deleteRecord(
  ctx: SandboxContext,
  uri: string,
  did: string,
): Promise<RepoHead | undefined> {
  const record = ctx.bluesky.records.get(uri);
  if (!record) return undefined;
  ctx.bluesky.records.delete(uri);
  dropDereferencedBlobs(ctx, did, record.blobs);
  return commit(ctx, did);
}

/** Whether a record of the repository references the blob (a PDS serves only such "permanent" blobs). */
export function isBlobReferenced(ctx: SandboxContext, did: string, cid: string): boolean {
  return recordsOf(ctx, did).some((record) => record.blobs.includes(cid));
}

import { isStoragePath } from "../../storage/paths.ts";

/** Hex digits of the source's SHA-256 in a derived path: 64 bits, plenty to tell one upload from another. */
const DIGEST_CHARS = 16;
const MAX_PATH = 128;

/**
 * Where the copy of `sourcePath` made to fit `profileId` is stored, beside the original:
 * `med_abc.png` → `med_abc_fit-bluesky-v1-<digest>.jpg`. The path names the source's bytes (their
 * SHA-256), so the same bytes always give the same path, and other bytes at the same source path
 * (an upload written again) a new one.
 */
export function derivedPath(
  sourcePath: string,
  profileId: string,
  sha256Hex: string,
  extension: string,
): string {
  const suffix = `_fit-${profileId}-${sha256Hex.slice(0, DIGEST_CHARS)}`;
  const stem = sourcePath.replace(/\.[a-z0-9]{1,8}$/, "").slice(0, MAX_PATH - suffix.length);
  const path = `${stem}${suffix}.${extension}`;
  if (!isStoragePath(path)) throw new Error(`No storage path can be derived from ${sourcePath}.`);
  return path;
}

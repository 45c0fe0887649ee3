import type { Readable } from "node:stream";
import { newId } from "@app/core";
import type { MediaStorage } from "../contracts/storage.ts";
import { UPLOAD_CONTENT_TYPES } from "../domain/media-types.ts";
import { type FetchGuard, guardedFetch } from "./guarded-fetch.ts";
import { MediaError } from "./media-error.ts";
import { MAX_MEDIA_BYTES, peekHead } from "./media-reader.ts";
import { SNIFF_BYTES, sniffMediaType } from "./sniff.ts";

/** Copies a media URL that is not ours into our storage; the stored copy's path. */
export type RemoteImporter = (url: string) => Promise<{ path: string }>;

/** Limits of an import made while a request waits (shorter than a worker's download). */
export type ImportOptions = Partial<FetchGuard>;

/**
 * Imports foreign media when a post is made: fetched once through the guarded fetcher (no
 * private or metadata address, each redirect checked, at most the upload limit, connect and total
 * time limits), its type sniffed from the bytes (a JPEG, PNG, GIF, WebP, MP4, MOV or WebM, as an
 * upload), and stored as an upload would be (`med_….ext`), so it is checked and made to fit like
 * one and the post does not depend on the other host later.
 */
export function createRemoteImporter(storage: MediaStorage, options: ImportOptions = {}): RemoteImporter {
  const guard: FetchGuard = {
    trustedOrigins: options.trustedOrigins ?? [],
    maxBytes: options.maxBytes ?? MAX_MEDIA_BYTES,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    totalTimeoutMs: options.totalTimeoutMs ?? 120_000,
    maxRedirects: options.maxRedirects ?? 5,
  };
  return async (url) => {
    const fetched = await guardedFetch(url, guard);
    const { head, stream } = await peekHead(fetched.stream as Readable, SNIFF_BYTES);
    const contentType = sniffMediaType(head);
    const extension = contentType === undefined ? undefined : UPLOAD_CONTENT_TYPES[contentType];
    if (contentType === undefined || extension === undefined) {
      stream.destroy();
      throw new MediaError(
        "MEDIA_TYPE_UNKNOWN",
        "The media is not a JPEG, PNG, GIF, WebP, MP4, MOV or WebM file.",
      );
    }
    const path = `${newId("med")}.${extension}`;
    try {
      await storage.write(path, stream, { contentType, expectedBytes: fetched.size });
    } catch (error) {
      stream.destroy();
      if (error instanceof MediaError) throw error;
      throw new MediaError("MEDIA_UNAVAILABLE", "The media could not be copied from its host.", true);
    }
    return { path };
  };
}

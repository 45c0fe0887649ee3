import type { Readable } from "node:stream";
import { newId } from "@app/core";
import type { MediaStorage } from "../contracts/storage.ts";
import { UPLOAD_CONTENT_TYPES } from "../domain/media-types.ts";
import { type FetchGuard, guardedFetch } from "./guarded-fetch.ts";
import { MediaError } from "./media-error.ts";
import { MAX_MEDIA_BYTES, peekHead } from "./media-reader.ts";
import { SNIFF_BYTES, sniffMediaType } from "./sniff.ts";

/** A stored copy of foreign media: its path, sniffed type and size, as an upload records them. */
export type ImportedMedia = { path: string; contentType: string; sizeBytes: number };

/** What the request an import is made for asks of it. */
export type ImportRequest = {
  /** Calls the import off (the request was refused or ran out of time): nothing is stored. */
  signal?: AbortSignal;
  /**
   * Told the size the host announced before a byte of the body is read; throws (a `MediaError`)
   * when the request may not import that much more, and the body is then never read.
   */
  reserveBytes?: (bytes: number) => void;
};

/** Copies a media URL that is not ours into our storage. */
export type RemoteImporter = (url: string, request?: ImportRequest) => Promise<ImportedMedia>;

/** Limits of an import made while a request waits (shorter than a worker's download). */
export type ImportOptions = Partial<FetchGuard>;

/** The reason a called-off import fails with (the signal's own, or one saying so). */
function calledOff(signal: AbortSignal): unknown {
  return signal.reason ?? new MediaError("MEDIA_UNAVAILABLE", "The import was called off.", true);
}

/**
 * Imports foreign media when a post is made: fetched once through the guarded fetcher (no
 * private or metadata address, each redirect checked, at most the upload limit, connect and total
 * time limits), its announced size reserved against the request's budget, its type sniffed from
 * the bytes (a JPEG, PNG, GIF, WebP, MP4, MOV or WebM, as an upload), and stored as an upload
 * would be (`med_….ext`), so it is checked and made to fit like one and the post does not depend
 * on the other host later. A call that is called off (`signal`) while the body streams stops the
 * write, which leaves nothing stored.
 */
export function createRemoteImporter(storage: MediaStorage, options: ImportOptions = {}): RemoteImporter {
  const guard: FetchGuard = {
    trustedOrigins: options.trustedOrigins ?? [],
    maxBytes: options.maxBytes ?? MAX_MEDIA_BYTES,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    totalTimeoutMs: options.totalTimeoutMs ?? 120_000,
    maxRedirects: options.maxRedirects ?? 5,
  };
  return async (url, request = {}) => {
    const { signal } = request;
    if (signal?.aborted) throw calledOff(signal);
    const fetched = await guardedFetch(url, guard);
    const body = fetched.stream as Readable;
    if (signal?.aborted) {
      body.destroy();
      throw calledOff(signal);
    }
    try {
      request.reserveBytes?.(fetched.size);
    } catch (error) {
      body.destroy();
      throw error;
    }
    const stop = () => body.destroy(new MediaError("MEDIA_UNAVAILABLE", "The import was called off.", true));
    signal?.addEventListener("abort", stop, { once: true });
    try {
      const { head, stream } = await peekHead(body, SNIFF_BYTES);
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
        if (signal?.aborted) throw calledOff(signal);
        if (error instanceof MediaError) throw error;
        throw new MediaError("MEDIA_UNAVAILABLE", "The media could not be copied from its host.", true);
      }
      if (signal?.aborted) {
        // Called off as the last byte was written: the copy is nobody's.
        await storage.delete(path).catch(() => undefined);
        throw calledOff(signal);
      }
      return { path, contentType, sizeBytes: fetched.size };
    } finally {
      signal?.removeEventListener("abort", stop);
    }
  };
}

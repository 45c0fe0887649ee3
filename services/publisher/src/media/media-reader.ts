import { Readable } from "node:stream";
import type { MediaReader } from "../contracts/publishing.ts";
import type { MediaStorage } from "../contracts/storage.ts";
import { type FetchGuard, guardedFetch } from "./guarded-fetch.ts";
import { MediaError } from "./media-error.ts";
import { SNIFF_BYTES, sniffMediaType } from "./sniff.ts";

/** The largest media file publishing reads (the upload limit). */
export const MAX_MEDIA_BYTES = 512 * 1024 * 1024;

export type MediaReaderOptions = Partial<FetchGuard>;

/** Reads the first bytes of a stream and gives back a stream that still starts at byte 0. */
export async function peekHead(source: Readable, bytes: number): Promise<{ head: Buffer; stream: Readable }> {
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let length = 0;
  while (length < bytes) {
    const next = await iterator.next();
    if (next.done) break;
    chunks.push(next.value);
    length += next.value.length;
  }
  const head = Buffer.concat(chunks);
  async function* replay() {
    try {
      yield head;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await iterator.return?.();
    }
  }
  return { head, stream: Readable.from(replay(), { objectMode: false }) };
}

/**
 * The media reader: the service's own storage by path (its public URLs map to paths), any other
 * URL through {@link guardedFetch}. The type always comes from the bytes.
 */
export function createMediaReader(storage: MediaStorage, options: MediaReaderOptions = {}): MediaReader {
  const guard: FetchGuard = {
    trustedOrigins: options.trustedOrigins ?? [],
    maxBytes: options.maxBytes ?? MAX_MEDIA_BYTES,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    totalTimeoutMs: options.totalTimeoutMs ?? 600_000,
    maxRedirects: options.maxRedirects ?? 5,
  };
  return {
    async open(url) {
      const path = storage.pathOf(url);
      const source = path
        ? await storage.read(path).catch(() => {
            throw new MediaError("MEDIA_UNAVAILABLE", "The uploaded media was not found.");
          })
        : await guardedFetch(url, guard);
      if (source.size > guard.maxBytes) {
        (source.stream as Readable).destroy();
        throw new MediaError("MEDIA_TOO_LARGE", `The media is over ${guard.maxBytes} bytes.`);
      }
      const { head, stream } = await peekHead(source.stream as Readable, SNIFF_BYTES);
      const contentType = sniffMediaType(head);
      if (!contentType) {
        stream.destroy();
        throw new MediaError(
          "MEDIA_TYPE_UNKNOWN",
          "The media is not a JPEG, PNG, GIF, WebP, MP4, MOV or WebM file.",
        );
      }
      return { stream, size: source.size, contentType };
    },
  };
}

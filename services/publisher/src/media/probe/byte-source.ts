import type { Readable } from "node:stream";
import type { MediaStorage } from "../../contracts/storage.ts";

/** A stored file read by byte range, never whole unless asked. */
export type ByteSource = {
  size: number;
  /** Bytes `start…end` (inclusive). */
  read(start: number, end: number): Promise<Buffer>;
};

/** Collects a stream into one buffer, failing once it passes `maxBytes`. */
export async function collect(stream: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream) {
      const bytes = chunk as Buffer;
      length += bytes.length;
      if (length > maxBytes) throw new RangeError(`The stream is longer than ${maxBytes} bytes.`);
      chunks.push(bytes);
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks, length);
}

/** A stored object as a {@link ByteSource}. */
export function storageSource(storage: MediaStorage, path: string, size: number): ByteSource {
  return {
    size,
    async read(start, end) {
      const last = Math.min(end, size - 1);
      if (last < start) return Buffer.alloc(0);
      const { stream } = await storage.read(path, { start, end: last });
      return collect(stream, last - start + 1);
    },
  };
}

/** The first `bytes` bytes of a source (all of it when shorter). */
export const headOf = (source: ByteSource, bytes: number): Promise<Buffer> =>
  source.read(0, Math.min(bytes, source.size) - 1);

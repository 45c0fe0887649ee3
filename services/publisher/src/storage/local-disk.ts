import { randomUUID } from "node:crypto";
import { createReadStream, writev } from "node:fs";
import { type FileHandle, mkdir, open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { finished, type Readable } from "node:stream";
import type { S3Client } from "@aws-sdk/client-s3";
import type { MediaStorage, WriteOptions } from "../contracts/storage.ts";
import { IncompleteBodyError, ObjectMissingError, RangeNotServedError } from "./errors.ts";
import { isStoragePath, pathAfter } from "./paths.ts";
import { presignPut, s3Client } from "./presigner.ts";
import type { SigningCredentials } from "./sigv4.ts";

/** The bucket name in this store's S3-style URLs: `/storage/<bucket>/<path>`. */
export const EMBEDDED_BUCKET = "media";

export type LocalDiskOptions = {
  dir: string;
  /** This service's public base URL, asked at each use (known only once the server listens). */
  publicBaseUrl: () => string;
  credentials: SigningCredentials;
};

type ObjectMeta = { contentType: string; size: number };

/**
 * Media on local disk: bodies stream to a temp file that is renamed into place only when complete,
 * so a short, long or aborted body leaves nothing behind. Objects are served at `/media/<path>`;
 * presigned PUTs go to this service's SigV4-checking `/storage/media/<path>`.
 */
export class LocalDiskStorage implements MediaStorage {
  private client: { base: string; client: S3Client } | undefined;

  /** Presigned PUTs come to this service's own `/storage/media/<path>`, signed with these credentials. */
  readonly selfServedUploads: { credentials: SigningCredentials };

  constructor(readonly options: LocalDiskOptions) {
    this.selfServedUploads = { credentials: options.credentials };
  }

  private file(path: string): string {
    if (!isStoragePath(path)) throw new ObjectMissingError(path);
    return join(this.options.dir, path);
  }

  async write(path: string, body: Readable, options: WriteOptions): Promise<void> {
    const target = this.file(path);
    const tempDir = join(this.options.dir, ".incoming");
    await mkdir(tempDir, { recursive: true });
    const temp = join(tempDir, `${randomUUID()}.part`);
    const expected = options.expectedBytes;
    let handle: FileHandle | undefined;
    try {
      handle = await open(temp, "wx");
      const bytes = await drainToFile(body, handle.fd, expected, options.ownsChunks === true);
      await handle.close();
      handle = undefined;
      if (expected !== undefined && bytes !== expected) throw new IncompleteBodyError(bytes, expected);
      const meta: ObjectMeta = { contentType: options.contentType, size: bytes };
      await writeFile(`${temp}.meta`, JSON.stringify(meta));
      await rename(`${temp}.meta`, `${target}.meta.json`);
      await rename(temp, target);
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await Promise.all([rm(temp, { force: true }), rm(`${temp}.meta`, { force: true })]);
      throw error;
    }
  }

  async head(path: string): Promise<{ size: number; contentType: string }> {
    const file = this.file(path);
    const stats = await stat(file).catch(() => undefined);
    if (!stats?.isFile()) throw new ObjectMissingError(path);
    const meta = await readFile(`${file}.meta.json`, "utf8")
      .then((text) => JSON.parse(text) as ObjectMeta)
      .catch(() => ({ contentType: "application/octet-stream", size: stats.size }));
    return { size: stats.size, contentType: meta.contentType };
  }

  async read(path: string, range?: { start: number; end: number }) {
    const head = await this.head(path);
    if (range && !(range.start >= 0 && range.start <= range.end && range.end < head.size)) {
      throw new RangeNotServedError(
        path,
        `bytes ${range.start}-${range.end}`,
        `an object of ${head.size} bytes`,
      );
    }
    return { stream: createReadStream(this.file(path), range), ...head };
  }

  async exists(path: string): Promise<boolean> {
    if (!isStoragePath(path)) return false;
    return (await stat(this.file(path)).catch(() => undefined))?.isFile() ?? false;
  }

  async delete(path: string): Promise<void> {
    const file = this.file(path);
    await Promise.all([rm(file, { force: true }), rm(`${file}.meta.json`, { force: true })]);
  }

  publicUrl(path: string): string {
    return `${this.options.publicBaseUrl()}/media/${path}`;
  }

  pathOf(url: string): string | undefined {
    return pathAfter(`${this.options.publicBaseUrl()}/media/`, url);
  }

  presignPut(path: string, options: { contentLength: number; contentType: string; expiresIn: number }) {
    if (!isStoragePath(path)) throw new ObjectMissingError(path);
    return presignPut(this.clientFor(this.options.publicBaseUrl()), EMBEDDED_BUCKET, path, options);
  }

  private clientFor(base: string): S3Client {
    if (this.client?.base !== base) {
      const { accessKeyId, secretAccessKey, region } = this.options.credentials;
      this.client = {
        base,
        client: s3Client({
          endpoint: `${base}/storage`,
          region,
          bucket: EMBEDDED_BUCKET,
          forcePathStyle: true,
          credentials: { accessKeyId, secretAccessKey },
        }),
      };
    }
    return this.client.client;
  }
}

/** Chunks are gathered into writes of at least this much (the last one aside): fewer syscalls and thread hops. */
const MIN_WRITE_BYTES = 1024 * 1024;

/**
 * The most bytes read ahead of the disk: past this the body is paused until the write in flight
 * lands. With at most as much again in that write, an upload holds about 8 MiB at most.
 */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

/**
 * Reads `body` into the open file `fd` from offset 0 and resolves with the bytes written. While one
 * `writev` is in flight the socket keeps being read: the chunks that arrive meanwhile go out
 * together in the next one (one JS hop per chunk, one syscall per MiB or more, no copies). With
 * `ownsChunks`, each written chunk is freed at once (see {@link freeWritten}). Fails on more than
 * `expected` bytes, on an error, or when the body closes before its end; it then stops reading
 * `body` (the rest is the caller's) and settles only once no write is in flight, so the caller may
 * close the file at once.
 */
function drainToFile(
  body: Readable,
  fd: number,
  expected: number | undefined,
  ownsChunks: boolean,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let received = 0;
    let written = 0;
    let queue: Uint8Array[] = [];
    let queued = 0;
    let writing = false;
    let ended = false;
    let pausedByUs = false;
    let failure: unknown;
    let failed = false;
    /** Chunks handed to this writer alone, so free to be freed once written. */
    const ours = new WeakSet<Uint8Array>();

    const settle = () => {
      if (writing) return;
      if (failed) reject(failure);
      else if (ended && queue.length === 0) resolve(received);
    };
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      failure = error;
      body.off("data", onData);
      stopWatching();
      settle();
    };
    const flush = () => {
      if (writing || failed || queue.length === 0 || (queued < MIN_WRITE_BYTES && !ended)) return settle();
      const batch = queue;
      const position = written;
      queue = [];
      written += queued;
      queued = 0;
      writing = true;
      if (pausedByUs) {
        pausedByUs = false;
        body.resume();
      }
      writeAll(fd, batch, position, (error) => {
        writing = false;
        if (!error) freeWritten(batch, ours);
        if (error) fail(error);
        else flush();
      });
    };
    const onData = (chunk: Uint8Array | string) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      received += bytes.length;
      if (expected !== undefined && received > expected) {
        fail(new IncompleteBodyError(received, expected));
        return;
      }
      if (ownsChunks && soleReader(body)) ours.add(bytes);
      queue.push(bytes);
      queued += bytes.length;
      if (queued >= MAX_QUEUED_BYTES && !pausedByUs) {
        pausedByUs = true;
        body.pause();
      }
      flush();
    };
    // `finished` also answers for a body that was aborted before this got to it.
    const stopWatching = finished(body, { writable: false }, (error) => {
      if (error) {
        fail(error);
        return;
      }
      ended = true;
      flush();
    });
    // First among the body's `data` listeners, so that when it runs every other listener handed
    // the same chunk is still counted (a `once` removes itself before it is called).
    body.prependListener("data", onData);
    // `on("data")` would start the flow; `prependListener` does not: unless paused on purpose.
    if (body.readableFlowing !== false) body.resume();
  });
}

/**
 * Whether the chunk being emitted goes to this writer alone: no other `data` listener (a pipe, a
 * `once`) is handed it, and no `readable` reader (an async iterator) shares the body. Asked by
 * the writer's own listener, which runs first.
 */
function soleReader(body: Readable): boolean {
  return body.listenerCount("data") === 1 && body.listenerCount("readable") === 0;
}

/**
 * Frees written chunks now rather than at the next full garbage collection. Node's HTTP parser
 * hands each piece of a body (64 KiB at most) over as a fresh buffer outside V8's heap; left to
 * the collector, 64 MB of them build up before V8 runs a mark-compact of the whole heap (8 per
 * 512 MiB upload), which took half the service's CPU on a large upload, and the process kept the
 * 64 MB. Detaching a chunk's `ArrayBuffer` (`transfer(0)`) frees its memory at once. Only chunks
 * in `ours` (handed to this writer alone, see {@link soleReader}) that span an `ArrayBuffer` of
 * their own are freed, never a slice of a pool or of a larger buffer; a buffer that cannot be
 * detached (marked untransferable) is left to the collector.
 */
function freeWritten(chunks: Uint8Array[], ours: WeakSet<Uint8Array>): void {
  for (const chunk of chunks) {
    const buffer = chunk.buffer;
    if (
      ours.has(chunk) &&
      buffer instanceof ArrayBuffer &&
      !buffer.detached &&
      !buffer.resizable &&
      chunk.byteOffset === 0 &&
      chunk.byteLength === buffer.byteLength
    ) {
      try {
        buffer.transfer(0);
      } catch {
        // Not detachable: the collector frees it as before.
      }
    }
  }
}

/** `writev` of all of `buffers` at `position`, again after a partial write until every byte is out. */
function writeAll(
  fd: number,
  buffers: Uint8Array[],
  position: number,
  done: (error: Error | null) => void,
): void {
  writev(fd, buffers, position, (error, count) => {
    if (error) {
      done(error);
      return;
    }
    let rest = count;
    let index = 0;
    while (index < buffers.length && rest >= (buffers[index] as Uint8Array).length) {
      rest -= (buffers[index] as Uint8Array).length;
      index += 1;
    }
    if (index === buffers.length) {
      done(null);
      return;
    }
    const left = buffers.slice(index);
    left[0] = (left[0] as Uint8Array).subarray(rest);
    writeAll(fd, left, position + count, done);
  });
}

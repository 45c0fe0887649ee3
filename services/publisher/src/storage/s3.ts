import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import type { MediaStorage, WriteOptions } from "../contracts/storage.ts";
import { IncompleteBodyError, ObjectMissingError, RangeNotServedError } from "./errors.ts";
import { isStoragePath, pathAfter } from "./paths.ts";
import { type PresignTarget, presignPut, s3Client } from "./presigner.ts";

export type S3StorageOptions = PresignTarget & {
  /** The bucket's public base URL; unset serves objects through this service's `GET /media/…`. */
  publicUrl?: string;
  publicBaseUrl: () => string;
};

const isMissing = (error: unknown) =>
  (error as { name?: string }).name === "NoSuchKey" ||
  (error as { name?: string }).name === "NotFound" ||
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;

/** Media in any S3-compatible store (AWS S3, R2, MinIO, …), chosen by `PUBLISHER_STORAGE=s3`. */
export class S3Storage implements MediaStorage {
  private readonly client: S3Client;

  constructor(private readonly options: S3StorageOptions) {
    this.client = s3Client(options);
  }

  private key(path: string): string {
    if (!isStoragePath(path)) throw new ObjectMissingError(path);
    return path;
  }

  async write(path: string, body: Readable, options: WriteOptions): Promise<void> {
    const Key = this.key(path);
    if (options.expectedBytes !== undefined) {
      await this.put(Key, body, options.contentType, options.expectedBytes);
      return;
    }
    // S3 needs the length up front: a body of unknown size is spooled to a temp file first.
    const dir = await mkdtemp(join(tmpdir(), "publisher-upload-"));
    try {
      const spool = join(dir, "body");
      await pipeline(body, createWriteStream(spool));
      const { size } = await stat(spool);
      await this.put(Key, createReadStream(spool), options.contentType, size);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async put(Key: string, body: Readable, contentType: string, size: number): Promise<void> {
    // The SDK reads what the counter passes on: counting with a listener on `body` itself would
    // start it flowing before the SDK attaches, and the first chunks would never reach S3. A body
    // longer or shorter than `size`, or one that fails, aborts the PUT: S3 keeps nothing.
    let received = 0;
    const abort = new AbortController();
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        if (received > size) abort.abort();
        done(null, received > size ? undefined : chunk);
      },
      flush(done) {
        if (received !== size) abort.abort();
        done();
      },
    });
    body.on("error", () => abort.abort());
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.options.bucket,
          Key,
          Body: body.pipe(counted),
          ContentType: contentType,
          ContentLength: size,
        }),
        { abortSignal: abort.signal },
      );
    } catch (error) {
      if (abort.signal.aborted) throw new IncompleteBodyError(received, size);
      throw error;
    }
    if (received !== size) throw new IncompleteBodyError(received, size);
  }

  async read(path: string, range?: { start: number; end: number }) {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.options.bucket,
          Key: this.key(path),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      const total = /\/(\d+)$/.exec(answer.ContentRange ?? "")?.[1];
      if (range) checkRangeServed(path, range, answer);
      return {
        stream: answer.Body as Readable,
        size: total === undefined ? Number(answer.ContentLength ?? 0) : Number(total),
        contentType: answer.ContentType ?? "application/octet-stream",
      };
    } catch (error) {
      if (isMissing(error)) throw new ObjectMissingError(path);
      throw error;
    }
  }

  async head(path: string): Promise<{ size: number; contentType: string }> {
    try {
      const answer = await this.client.send(
        new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.key(path) }),
      );
      return {
        size: Number(answer.ContentLength ?? 0),
        contentType: answer.ContentType ?? "application/octet-stream",
      };
    } catch (error) {
      if (isMissing(error)) throw new ObjectMissingError(path);
      throw error;
    }
  }

  async exists(path: string): Promise<boolean> {
    if (!isStoragePath(path)) return false;
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: path }));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async delete(path: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.key(path) }));
  }

  private publicPrefix(): string {
    return this.options.publicUrl ? `${this.options.publicUrl}/` : `${this.options.publicBaseUrl()}/media/`;
  }

  publicUrl(path: string): string {
    return `${this.publicPrefix()}${path}`;
  }

  pathOf(url: string): string | undefined {
    return pathAfter(this.publicPrefix(), url);
  }

  presignPut(path: string, options: { contentLength: number; contentType: string; expiresIn: number }) {
    return presignPut(this.client, this.options.bucket, this.key(path), options);
  }
}

/**
 * Throws unless the answer to a range read is that range (`206`, `Content-Range: bytes start-end/…`
 * and as many bytes): an S3-compatible store that ignores `Range` answers the whole object, whose
 * first bytes must not pass for the range. The refused body is released.
 */
function checkRangeServed(
  path: string,
  range: { start: number; end: number },
  answer: { ContentRange?: string; ContentLength?: number; Body?: unknown },
): void {
  const asked = `bytes ${range.start}-${range.end}`;
  const served =
    answer.ContentRange?.startsWith(`${asked}/`) && answer.ContentLength === range.end - range.start + 1;
  if (served) return;
  (answer.Body as Readable | undefined)?.destroy?.();
  throw new RangeNotServedError(
    path,
    asked,
    answer.ContentRange
      ? `Content-Range ${answer.ContentRange}`
      : `the whole object (${answer.ContentLength ?? "?"} bytes)`,
  );
}

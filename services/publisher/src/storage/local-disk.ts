import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { S3Client } from "@aws-sdk/client-s3";
import type { MediaStorage } from "../contracts/storage.ts";
import { IncompleteBodyError, ObjectMissingError } from "./errors.ts";
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

  constructor(readonly options: LocalDiskOptions) {}

  private file(path: string): string {
    if (!isStoragePath(path)) throw new ObjectMissingError(path);
    return join(this.options.dir, path);
  }

  async write(
    path: string,
    body: Readable,
    options: { contentType: string; expectedBytes?: number },
  ): Promise<void> {
    const target = this.file(path);
    const tempDir = join(this.options.dir, ".incoming");
    await mkdir(tempDir, { recursive: true });
    const temp = join(tempDir, `${randomUUID()}.part`);
    const expected = options.expectedBytes;
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (expected !== undefined && bytes > expected) done(new IncompleteBodyError(bytes, expected));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(body, counter, createWriteStream(temp, { flags: "wx" }));
      if (expected !== undefined && bytes !== expected) throw new IncompleteBodyError(bytes, expected);
      const meta: ObjectMeta = { contentType: options.contentType, size: bytes };
      await writeFile(`${temp}.meta`, JSON.stringify(meta));
      await rename(`${temp}.meta`, `${target}.meta.json`);
      await rename(temp, target);
    } catch (error) {
      await Promise.all([rm(temp, { force: true }), rm(`${temp}.meta`, { force: true })]);
      throw error;
    }
  }

  async read(path: string, range?: { start: number; end: number }) {
    const file = this.file(path);
    const stats = await stat(file).catch(() => undefined);
    if (!stats?.isFile()) throw new ObjectMissingError(path);
    const meta = await readFile(`${file}.meta.json`, "utf8")
      .then((text) => JSON.parse(text) as ObjectMeta)
      .catch(() => ({ contentType: "application/octet-stream", size: stats.size }));
    return { stream: createReadStream(file, range), size: stats.size, contentType: meta.contentType };
  }

  async exists(path: string): Promise<boolean> {
    if (!isStoragePath(path)) return false;
    return (await stat(this.file(path)).catch(() => undefined))?.isFile() ?? false;
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

import type { Readable } from "node:stream";
import type { SigningCredentials } from "../storage/sigv4.ts";

/** How a body is to be stored. */
export type WriteOptions = {
  contentType: string;
  /** The body's exact length, when known before it is read. */
  expectedBytes?: number;
  /**
   * The body's chunks are the store's alone once read (Node's own request: each chunk a fresh
   * buffer that nobody else holds), so a store may free each one as soon as it is written instead
   * of leaving it to the garbage collector. A store frees only a chunk that spans a buffer of its
   * own and that was handed to the store alone (no other reader of the body was given it).
   */
  ownsChunks?: boolean;
};

/**
 * Where uploaded media lives: local disk by default (with the service's own SigV4-checking PUT
 * endpoint for presigned uploads), any S3-compatible store by config.
 */
export interface MediaStorage {
  /**
   * Streams a body to `path`, failing (and leaving nothing) when it is aborted, or when it is
   * shorter or longer than `expectedBytes`. Without `expectedBytes` (a multipart file, whose size
   * is known only at its end) the caller bounds the body. `body` may be Node's request stream
   * itself (a raw upload is handed over as it comes off the socket, with no stream in between):
   * only a bounded part of it may be held in memory, and a failed write may leave the rest unread.
   */
  write(path: string, body: Readable, options: WriteOptions): Promise<void>;
  /** A stored object's size and type, without reading it (`ObjectMissingError` when there is none). */
  head(path: string): Promise<{ size: number; contentType: string }>;
  /**
   * A stored object, or bytes `start…end` of it (`0 ≤ start ≤ end < size`): the stream then holds
   * exactly that range, or the read is refused with `RangeNotServedError` (a range outside the
   * object, or a store that answers with other bytes); `size` is the object's.
   */
  read(
    path: string,
    range?: { start: number; end: number },
  ): Promise<{ stream: Readable; size: number; contentType: string }>;
  exists(path: string): Promise<boolean>;
  /** Removes an object (nothing happens when there is none). */
  delete(path: string): Promise<void>;
  /** The URL anyone (platforms included) fetches the object at, with range requests. */
  publicUrl(path: string): string;
  /** The path behind one of this storage's public URLs, or undefined for any other URL. */
  pathOf(url: string): string | undefined;
  /**
   * Set when this service receives the presigned PUTs itself (the embedded store, at
   * `PUT /storage/…`): the credentials their signatures are checked against. Unset for a store
   * that receives them (S3).
   */
  readonly selfServedUploads?: { credentials: SigningCredentials };
  /** A presigned PUT binding exact size and type (S3 SigV4 query presign). */
  presignPut(
    path: string,
    options: { contentLength: number; contentType: string; expiresIn: number },
  ): Promise<string>;
}

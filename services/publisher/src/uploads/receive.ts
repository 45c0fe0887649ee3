import { Readable, Transform, type Writable } from "node:stream";
import { type ApiError, requestHeader, streamRequestBody } from "@app/core";
import busboy from "busboy";
import type { Context } from "hono";
import type { MediaStorage } from "../contracts/storage.ts";
import { describeUpload } from "../domain/media-types.ts";
import { PublisherError } from "../errors.ts";
import { IncompleteBodyError } from "../storage/errors.ts";
import { MAX_UPLOAD_BYTES } from "./limits.ts";

/** A stored upload: where it is and what it holds. */
export type ReceivedUpload = { path: string; contentType: string; sizeBytes: number };

/** Names a new object from its extension (`med_3kTq….mp4`). */
export type PathMaker = (extension: string) => string;

const closing = (error: ApiError) => error.withHeaders({ Connection: "close" });

/**
 * The body's declared `Content-Length`, checked from the header alone before any byte is read:
 * missing 411, not a number 400, over 512 MiB 413, each closing the connection.
 */
export function declaredLength(c: Context): number {
  const declared = requestHeader(c, "content-length");
  if (declared === undefined) {
    throw closing(
      new PublisherError("LENGTH_REQUIRED", "A Content-Length header is required for an upload."),
    );
  }
  if (!/^\d{1,16}$/.test(declared)) {
    throw closing(new PublisherError("BAD_REQUEST", "The Content-Length header is not a number."));
  }
  const length = Number(declared);
  if (length > MAX_UPLOAD_BYTES) {
    throw closing(
      new PublisherError("PAYLOAD_TOO_LARGE", `An upload has at most ${MAX_UPLOAD_BYTES} bytes.`, {
        limitBytes: MAX_UPLOAD_BYTES,
      }),
    );
  }
  return length;
}

function unknownMedia(where: string): PublisherError {
  return new PublisherError("VALIDATION_FAILED", "The upload is not a video or an image.", {
    issues: [
      {
        path: where,
        message: "must name a video or image file (e.g. clip.mp4, photo.jpg) or carry its type",
      },
    ],
  });
}

/** An upload of no bytes: nothing to publish (v2 refuses a `contentLength` of 0 the same way). */
function emptyUpload(where: string): PublisherError {
  return new PublisherError("VALIDATION_FAILED", "The upload is empty.", {
    issues: [{ path: where, message: "must have at least 1 byte: an empty file cannot be published" }],
  });
}

/** Storage and stream failures as the caller should see them; anything else unchanged. */
export function asUploadError(error: unknown): unknown {
  if (error instanceof IncompleteBodyError) {
    return new PublisherError(
      "INCOMPLETE_UPLOAD",
      "The body did not match its Content-Length; nothing was stored.",
      {
        receivedBytes: error.receivedBytes,
        expectedBytes: error.expectedBytes,
      },
    );
  }
  return error;
}

/**
 * Streams the body into `sink` while `storing` consumes it; both must succeed. A store that fails
 * (`storeFailed`) ends the upload at once, without waiting for the rest of the body.
 */
async function streamInto(
  c: Context,
  sink: Writable,
  length: number,
  storing: Promise<unknown>,
  storeFailed: Promise<never>,
): Promise<void> {
  const settled = Promise.allSettled([streamRequestBody(c, sink, { maxBytes: length }), storing]);
  let results: PromiseSettledResult<unknown>[];
  try {
    results = await Promise.race([settled, storeFailed]);
  } catch (error) {
    throw asUploadError(error);
  }
  const failure = results.find((result) => result.status === "rejected");
  if (failure) throw asUploadError((failure as PromiseRejectedResult).reason);
}

/** A request body as a Node stream, and whether its chunks are its reader's alone. */
export type RequestBody = { stream: Readable; ownsChunks: boolean };

/**
 * The request body as a Node stream. Under `@hono/node-server` that is Node's request itself,
 * untouched (no web-stream round trip, and `c.req.raw.body` is never read: a second reader on the
 * same socket would starve the first), whose chunks are fresh buffers its reader owns; elsewhere
 * (`app.request` in tests) the web body, wrapped, whose chunks may be the sender's own.
 */
export function requestBody(c: Context): RequestBody {
  const incoming = (c.env as { incoming?: Readable } | undefined)?.incoming;
  if (incoming) return { stream: incoming, ownsChunks: true };
  const body = c.req.raw.body;
  return { stream: body ? Readable.fromWeb(body) : Readable.from([]), ownsChunks: false };
}

/**
 * A raw body named by `x-filename` (its type from `Content-Type` or the name), handed to storage
 * as it comes off the socket; storage counts it against the declared length.
 */
export async function receiveRaw(
  c: Context,
  storage: MediaStorage,
  makePath: PathMaker,
  length: number,
): Promise<ReceivedUpload> {
  if (length === 0) throw emptyUpload("content-length");
  const described = describeUpload(requestHeader(c, "x-filename"), requestHeader(c, "content-type"));
  if (!described) throw unknownMedia("x-filename");
  const path = makePath(described.extension);
  try {
    const body = requestBody(c);
    await storage.write(path, body.stream, {
      contentType: described.contentType,
      expectedBytes: length,
      ownsChunks: body.ownsChunks,
    });
  } catch (error) {
    throw asUploadError(error);
  }
  return { path, contentType: described.contentType, sizeBytes: length };
}

/**
 * Removes a multipart upload's stored file once its body failed. `storing` has settled by then
 * (the parse waits for it, and a failed store fails the upload at once); a store that failed left
 * nothing. A removal that fails is not the client's to hear of: the answer stays that of the body.
 */
async function discardStored(storage: MediaStorage, path: string, storing: Promise<void>): Promise<void> {
  const stored = await storing.then(
    () => true,
    () => false,
  );
  if (stored) await storage.delete(path).catch(() => undefined);
}

/**
 * The multipart field `file`, streamed to storage as it arrives (other fields are ignored). The
 * upload is stored only when the whole body parsed: a file part stored before the rest of the body
 * failed is removed again.
 */
export async function receiveMultipart(
  c: Context,
  storage: MediaStorage,
  makePath: PathMaker,
  length: number,
): Promise<ReceivedUpload> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": requestHeader(c, "content-type") ?? "" },
      limits: { files: 1, fileSize: MAX_UPLOAD_BYTES, fields: 50, fieldSize: 64 * 1024 },
    });
  } catch {
    throw new PublisherError("BAD_REQUEST", "The multipart Content-Type needs a boundary.");
  }
  let received: ReceivedUpload | undefined;
  let refusal: unknown;
  let storing: Promise<void> = Promise.resolve();
  let failStore: (error: unknown) => void = () => undefined;
  const storeFailed = new Promise<never>((_resolve, reject) => {
    failStore = reject;
  });
  storeFailed.catch(() => undefined);
  parser.on("file", (field, file, info) => {
    const described =
      field === "file" && !received ? describeUpload(info.filename, info.mimeType) : undefined;
    if (!described) {
      if (field === "file" && !received) refusal = unknownMedia("file");
      file.resume();
      return;
    }
    const upload: ReceivedUpload = {
      path: makePath(described.extension),
      contentType: described.contentType,
      sizeBytes: 0,
    };
    received = upload;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        upload.sizeBytes += chunk.length;
        done(null, chunk);
      },
      // An empty file fails its own store, so nothing is kept.
      flush(done) {
        done(upload.sizeBytes === 0 ? emptyUpload("file") : null);
      },
    });
    // The store attaches to `counted` only after its own setup: until then a failure must not go unheard.
    counted.on("error", () => undefined);
    file.on("error", (error) => counted.destroy(error));
    storing = storage.write(upload.path, file.pipe(counted), { contentType: described.contentType });
    storing.catch((error: unknown) => {
      // The store stopped reading: the rest of the file is drained, so the parser (and with it
      // the request) keeps moving, and the upload is answered now.
      file.unpipe(counted);
      file.resume();
      failStore(error);
    });
  });
  let malformed: Error | undefined;
  parser.on("error", (error: Error) => {
    malformed = error;
  });
  try {
    await streamInto(
      c,
      parser,
      length,
      new Promise<void>((resolve) => parser.on("close", resolve)).then(() => storing),
      storeFailed,
    );
  } catch (error) {
    // The `file` part may have been stored whole before the body around it failed (a short body,
    // a reset, a missing closing boundary): the answer says nothing was stored, so nothing is.
    if (received) await discardStored(storage, received.path, storing);
    if (!malformed) throw error;
    throw new PublisherError(
      "INCOMPLETE_UPLOAD",
      `The multipart body is not complete: ${malformed.message}.`,
    );
  }
  if (refusal) throw refusal;
  if (!received) {
    throw new PublisherError("INCOMPLETE_UPLOAD", "The multipart body has no file in the field `file`.");
  }
  return received;
}

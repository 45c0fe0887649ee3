/** A part's headers, names lower-cased. */
export type PartHeaders = Record<string, string>;

/** Where the parts of a `multipart/related` upload go as they stream in. */
export type MultipartSink = {
  /** The first part (the metadata), whole: it is small and is read before any media byte. */
  metadata(headers: PartHeaders, body: Buffer): void;
  /** The second part (the media) starts; throwing refuses it before any of its bytes are taken. */
  mediaStart(headers: PartHeaders): void;
  /** The next bytes of the media part. */
  media(chunk: Buffer): void;
};

/** Why a body is not the two-part `multipart/related` Google takes. */
export class MultipartProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MultipartProblem";
  }
}

const CRLF = Buffer.from("\r\n");
const HEADER_END = Buffer.from("\r\n\r\n");
const MAX_HEADER_BYTES = 8 * 1024;
/** RFC 2046: a boundary is 1–70 characters of this set, not ending in a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/**
 * The boundary of a `multipart/related` Content-Type (quoted or not); undefined when the type is
 * another one or the boundary is missing or malformed.
 */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  const [type = "", ...params] = contentType.split(";");
  if (type.trim().toLowerCase() !== "multipart/related") return undefined;
  for (const param of params) {
    const match = /^\s*boundary\s*=\s*(?:"([^"]*)"|([^\s;]+))\s*$/i.exec(param);
    const value = match?.[1] ?? match?.[2];
    if (value !== undefined) return BOUNDARY.test(value) ? value : undefined;
  }
  return undefined;
}

function parseHeaders(block: Buffer): PartHeaders {
  const headers: PartHeaders = {};
  for (const line of block.toString("latin1").split("\r\n")) {
    if (line === "") continue;
    const colon = line.indexOf(":");
    if (colon <= 0) throw new MultipartProblem(`A part header line is malformed: ${line.slice(0, 60)}`);
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

type State =
  | { kind: "preamble" }
  | { kind: "afterBoundary"; part: number }
  | { kind: "headers"; part: number }
  | { kind: "body"; part: number }
  | { kind: "done" };

/**
 * Reads a `multipart/related` body (RFC 2387) as Google's upload endpoints take it for
 * `uploadType=multipart`: exactly two parts, the metadata first and the media second, each with
 * its own headers, separated by `--boundary` and closed by `--boundary--`. The metadata part is
 * held (up to `maxMetadataBytes`); the media part is handed on chunk by chunk and never held, so
 * a body of any size streams through in constant memory. The body may come with or without a
 * `Content-Length` (the official Node client sends it chunked). A refusal is thrown once the whole
 * body has been read.
 */
export async function readMultipartRelated(
  source: AsyncIterable<Buffer | Uint8Array>,
  boundary: string,
  sink: MultipartSink,
  limits: { maxMetadataBytes: number },
): Promise<void> {
  const dashBoundary = Buffer.from(`--${boundary}`);
  /** Between parts the boundary follows a line break. */
  const delimiter = Buffer.concat([CRLF, dashBoundary]);
  let state: State = { kind: "preamble" };
  let buffer: Buffer = Buffer.alloc(0);
  let metadataHeaders: PartHeaders = {};
  let metadata: Buffer[] = [];
  let metadataBytes = 0;

  const takeBody = (part: number, bytes: Buffer) => {
    if (bytes.length === 0) return;
    if (part === 0) {
      metadataBytes += bytes.length;
      if (metadataBytes > limits.maxMetadataBytes) throw new MultipartProblem("Metadata part is too large.");
      metadata.push(bytes);
    } else {
      sink.media(bytes);
    }
  };

  /** Advances as far as the buffered bytes allow; false when more bytes are needed. */
  const step = (): boolean => {
    switch (state.kind) {
      case "preamble": {
        // The first boundary opens the body, or follows a preamble and a line break.
        if (buffer.length < dashBoundary.length) return false;
        if (buffer.subarray(0, dashBoundary.length).equals(dashBoundary)) {
          buffer = buffer.subarray(dashBoundary.length);
          state = { kind: "afterBoundary", part: 0 };
          return true;
        }
        const at = buffer.indexOf(delimiter);
        if (at < 0) {
          if (buffer.length > MAX_HEADER_BYTES) throw new MultipartProblem("No multipart boundary found.");
          return false;
        }
        buffer = buffer.subarray(at + delimiter.length);
        state = { kind: "afterBoundary", part: 0 };
        return true;
      }
      case "afterBoundary": {
        if (buffer.length < 2) return false;
        if (buffer[0] === 0x2d && buffer[1] === 0x2d) {
          if (state.part < 2) {
            throw new MultipartProblem(
              state.part === 0
                ? "The multipart body has no parts."
                : "The multipart body has no media part: metadata first, then the media.",
            );
          }
          state = { kind: "done" };
          buffer = Buffer.alloc(0);
          return true;
        }
        // Transport padding (spaces, tabs) may follow a boundary before its line break.
        const lineEnd = buffer.indexOf(CRLF);
        if (lineEnd < 0) {
          if (buffer.length > 256) throw new MultipartProblem("A multipart boundary line is malformed.");
          return false;
        }
        if (!/^[ \t]*$/.test(buffer.subarray(0, lineEnd).toString("latin1"))) {
          throw new MultipartProblem("A multipart boundary line is malformed.");
        }
        if (state.part >= 2) {
          throw new MultipartProblem(
            "A multipart upload has exactly two parts: the metadata, then the media.",
          );
        }
        buffer = buffer.subarray(lineEnd + CRLF.length);
        state = { kind: "headers", part: state.part };
        return true;
      }
      case "headers": {
        // A part with no headers starts its body right away (an empty line).
        const end = buffer.subarray(0, 2).equals(CRLF) ? -2 : buffer.indexOf(HEADER_END);
        if (end === -1) {
          if (buffer.length > MAX_HEADER_BYTES) throw new MultipartProblem("A part's headers are too long.");
          return false;
        }
        const headers = end === -2 ? {} : parseHeaders(buffer.subarray(0, end));
        buffer = buffer.subarray(end === -2 ? 2 : end + HEADER_END.length);
        if (state.part === 0) metadataHeaders = headers;
        else sink.mediaStart(headers);
        state = { kind: "body", part: state.part };
        return true;
      }
      case "body": {
        const at = buffer.indexOf(delimiter);
        if (at < 0) {
          // Keep what could be the start of a delimiter split across reads.
          const safe = buffer.length - (delimiter.length - 1);
          if (safe > 0) {
            takeBody(state.part, buffer.subarray(0, safe));
            buffer = buffer.subarray(safe);
          }
          return false;
        }
        takeBody(state.part, buffer.subarray(0, at));
        buffer = buffer.subarray(at + delimiter.length);
        if (state.part === 0) {
          sink.metadata(metadataHeaders, Buffer.concat(metadata));
          metadata = [];
        }
        state = { kind: "afterBoundary", part: state.part + 1 };
        return true;
      }
      case "done":
        // The epilogue after the closing boundary is ignored.
        buffer = Buffer.alloc(0);
        return false;
    }
  };

  // A refusal (from the parser or the sink) stops the parsing but not the reading: the rest of
  // the body is read and dropped, so the client, still sending, gets the answer rather than a
  // broken connection.
  let refusal: unknown;
  for await (const chunk of source) {
    if (refusal !== undefined) continue;
    const piece = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    buffer = buffer.length === 0 ? piece : Buffer.concat([buffer, piece]);
    try {
      while (step()) {
        // advance
      }
    } catch (error) {
      refusal = error;
      buffer = Buffer.alloc(0);
    }
  }
  if (refusal !== undefined) throw refusal;
  // (`step` moves the state; the compiler cannot see that through the closure.)
  if ((state as State).kind !== "done") {
    throw new MultipartProblem("The multipart body ended before its closing boundary.");
  }
}

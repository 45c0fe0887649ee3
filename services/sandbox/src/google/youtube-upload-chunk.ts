import { requestHeader, type ServiceApp, streamRequestBody } from "@app/core";
import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { type ContentRange, parseContentRange } from "../kit/content-range.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { mountOperation } from "../kit/operations.ts";
import { googleApiErrors } from "./errors.ts";
import type { UploadSession } from "./state.ts";
import { completeVideo } from "./video-resource.ts";
import { UPLOAD_PATH } from "./youtube-upload-start.ts";

/** Every chunk but the last must be a multiple of this. */
export const CHUNK_GRANULARITY = 256 * 1024;

function findSession(c: Context, ctx: SandboxContext): UploadSession {
  const id = new URL(c.req.url).searchParams.get("upload_id") ?? "";
  const session = ctx.google.sessions.get(id);
  if (!session) throw new PlatformFailure(404, "notFound", "The upload session was not found.");
  if (!session.video && session.expiresAt <= ctx.kit.clock.now()) {
    throw new PlatformFailure(410, "notFound", "The upload session has expired. Start a new upload.");
  }
  return session;
}

/** Where the session stands: 200 with the video once complete, else 308 with the bytes it holds. */
function sessionStatus(c: Context, session: UploadSession): Response {
  if (session.video) return c.json(session.video, 200);
  const received = session.digest.bytes;
  return c.body(null, 308, received > 0 ? { Range: `bytes=0-${received - 1}` } : {});
}

/** The range a PUT carries: its Content-Range, or the whole file when it has none. */
function rangeOf(c: Context, session: UploadSession, length: number): ContentRange {
  const header = requestHeader(c, "content-range");
  if (header === undefined) {
    if (length === 0) return { kind: "probe", total: session.total };
    return { kind: "bytes", first: 0, last: length - 1, total: length };
  }
  const range = parseContentRange(header);
  if (!range) throw new PlatformFailure(400, "badRequest", "Failed to parse Content-Range header.");
  return range;
}

function checkChunk(
  session: UploadSession,
  range: Extract<ContentRange, { kind: "bytes" }>,
  length: number,
): void {
  const size = range.last - range.first + 1;
  if (length !== size) {
    throw new PlatformFailure(
      400,
      "badRequest",
      `Content-Length ${length} does not match the Content-Range (${size} bytes).`,
    );
  }
  const total = range.total ?? session.total;
  if (range.total !== null && session.total !== null && range.total !== session.total) {
    throw new PlatformFailure(
      400,
      "badRequest",
      `The total size ${range.total} differs from the announced ${session.total}.`,
    );
  }
  if (range.first !== session.digest.bytes) {
    throw new PlatformFailure(
      400,
      "badRequest",
      `The chunk starts at byte ${range.first}, but the session holds ${session.digest.bytes} bytes: query with Content-Range: bytes */${total ?? "*"} and resume from the byte after its Range.`,
    );
  }
  const isLast = total !== null && range.last + 1 === total;
  if (!isLast && size % CHUNK_GRANULARITY !== 0) {
    throw new PlatformFailure(
      400,
      "badRequest",
      `Chunks other than the last must be a multiple of ${CHUNK_GRANULARITY} bytes.`,
    );
  }
}

/** `PUT` to a session URI: a chunk (`Content-Range: bytes a-b/total`) or a status query (`bytes *\/total`). */
export function registerYouTubeUploadChunk(app: ServiceApp, ctx: SandboxContext): void {
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "youtube.videos.upload",
      platform: "youtube",
      method: "put",
      path: UPLOAD_PATH,
      summary: "Send bytes to a resumable session, or ask how many it holds",
      description:
        "308 Resume Incomplete with `Range: bytes=0-N` while bytes are missing; 200 with the video resource once the last byte arrives (again for any later PUT: the session makes one video).",
      errors: googleApiErrors,
    },
    async (c) => {
      const session = findSession(c, ctx);
      const lengthHeader = requestHeader(c, "content-length") ?? "0";
      if (!/^\d{1,15}$/.test(lengthHeader))
        throw new PlatformFailure(411, "badRequest", "Content-Length is required.");
      const length = Number(lengthHeader);
      const range = rangeOf(c, session, length);
      if (session.video || range.kind === "probe") {
        if (range.kind === "probe" && length !== 0) {
          throw new PlatformFailure(400, "badRequest", "A status query has no body.");
        }
        return sessionStatus(c, session);
      }
      checkChunk(session, range, length);
      if (range.total !== null) session.total = range.total;
      const sink = session.digest.sink();
      try {
        await streamRequestBody(c, sink, { maxBytes: length });
      } catch {
        // The connection broke off: the bytes that arrived stay (a status query shows them).
        return sessionStatus(c, session);
      }
      if (session.total === null || session.digest.bytes < session.total) return sessionStatus(c, session);
      const { resource, published } = completeVideo(session, session.digest.finish(), ctx.kit.clock.now());
      session.video = resource;
      ctx.google.videos.push(published);
      return c.json(resource, 200);
    },
  );
}

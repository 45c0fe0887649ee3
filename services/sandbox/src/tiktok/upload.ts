import { requestHeader, type ServiceApp, streamRequestBody } from "@app/core";
import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { parseContentRange } from "../kit/content-range.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { mountOperation } from "../kit/operations.ts";
import { type ChunkPlan, chunkRange } from "./chunk-plan.ts";
import { tiktokErrors } from "./errors.ts";
import type { TikTokPost } from "./state.ts";
import { UPLOAD_PATH } from "./video-init.ts";

const VIDEO_TYPES = new Set(["video/mp4", "video/quicktime", "video/webm"]);
const invalid = (message: string) => new PlatformFailure(400, "invalid_params", message);

function findUpload(c: Context, ctx: SandboxContext): TikTokPost & { plan: ChunkPlan } {
  const url = new URL(c.req.url);
  const post = ctx.tiktok.posts.get(url.searchParams.get("upload_id") ?? "");
  if (!post?.plan || !post.digest || post.uploadToken === null) {
    throw new PlatformFailure(404, "invalid_params", "No upload with this upload_id.");
  }
  if (url.searchParams.get("upload_token") !== post.uploadToken) {
    throw new PlatformFailure(403, "invalid_params", "The upload_token does not match this upload.");
  }
  return post as TikTokPost & { plan: ChunkPlan };
}

/** Checks that the chunk is the next one, exactly as declared at init; returns its size. */
function checkChunk(c: Context, post: TikTokPost & { plan: ChunkPlan }): number {
  const type = (requestHeader(c, "content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (!VIDEO_TYPES.has(type)) throw invalid("Content-Type must be video/mp4, video/quicktime or video/webm.");
  const range = parseContentRange(requestHeader(c, "content-range"));
  if (range?.kind !== "bytes" || range.total === null) {
    throw invalid("Content-Range must be bytes {FIRST_BYTE}-{LAST_BYTE}/{TOTAL_BYTE_LENGTH}.");
  }
  if (range.total !== post.plan.videoSize)
    throw invalid(`The total length must be the declared video_size ${post.plan.videoSize}.`);
  const received = post.digest?.bytes ?? 0;
  if (received === post.plan.videoSize) throw invalid("Every chunk of this upload has arrived already.");
  const index = Math.floor(received / post.plan.chunkSize);
  const expected = chunkRange(post.plan, index);
  if (range.first !== expected.first || range.last !== expected.last) {
    throw invalid(
      `Chunks go in order: the next one is bytes ${expected.first}-${expected.last}/${post.plan.videoSize}.`,
    );
  }
  const size = expected.last - expected.first + 1;
  if (requestHeader(c, "content-length") !== String(size))
    throw invalid(`Content-Length must be ${size} for this chunk.`);
  return size;
}

/** `PUT {upload_url}`: one chunk of a FILE_UPLOAD, in order; 206 while chunks remain, 201 once whole. */
export function registerTikTokUpload(app: ServiceApp, ctx: SandboxContext): void {
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "tiktok.upload",
      platform: "tiktok",
      method: "put",
      path: UPLOAD_PATH,
      summary: "Upload one chunk to the upload_url init returned (Content-Range, exact sizes, in order)",
      errors: tiktokErrors,
    },
    async (c) => {
      const post = findUpload(c, ctx);
      const size = checkChunk(c, post);
      const digest = post.digest;
      if (!digest) throw invalid("No upload with this upload_id.");
      digest.checkpoint();
      try {
        const bytes = await streamRequestBody(c, digest.sink(), { maxBytes: size });
        if (bytes !== size) throw new Error("short chunk");
      } catch {
        digest.rollback();
        throw invalid("The chunk did not arrive whole; send it again.");
      }
      if (digest.bytes < post.plan.videoSize) return c.body(null, 206);
      digest.finish();
      return c.body(null, 201);
    },
  );
}

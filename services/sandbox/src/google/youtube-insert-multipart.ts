import { requestBodySource, requestHeader } from "@app/core";
import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { MediaDigest } from "../kit/digest.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { MultipartProblem, multipartBoundary, readMultipartRelated } from "./multipart-related.ts";
import type { VideoMetadata } from "./video-metadata.ts";
import {
  checkInsertMetadata,
  checkVideoMediaType,
  finishUpload,
  MAX_METADATA_BYTES,
  MAX_VIDEO_BYTES,
  takeInsertQuota,
  type Uploader,
} from "./video-upload.ts";

const JSON_TYPE = /^application\/json\s*(;.*)?$/i;

/** Refuses a declared body larger than videos.insert takes, before reading it. */
export function checkDeclaredLength(c: Context, max: number): void {
  const declared = requestHeader(c, "content-length");
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > max) {
    throw new PlatformFailure(413, "uploadTooLarge", `The upload is larger than ${max} bytes.`);
  }
}

/**
 * videos.insert with `uploadType=multipart`: one `multipart/related` body holding the metadata
 * (JSON) and then the video, streamed: the metadata is checked and the quota counted as soon as
 * the first part is in, and the video's bytes are hashed as they arrive and dropped.
 */
export async function insertMultipart(
  c: Context,
  ctx: SandboxContext,
  caller: Uploader,
  parts: string[],
): Promise<Response> {
  const boundary = multipartBoundary(requestHeader(c, "content-type"));
  if (!boundary) {
    throw new PlatformFailure(
      400,
      "badRequest",
      "uploadType=multipart takes a Content-Type of multipart/related with a boundary.",
    );
  }
  checkDeclaredLength(c, MAX_VIDEO_BYTES + MAX_METADATA_BYTES);
  const digest = new MediaDigest();
  let metadata: VideoMetadata | undefined;
  let contentType = "";
  try {
    await readMultipartRelated(
      requestBodySource(c),
      boundary,
      {
        metadata(headers, body) {
          if (!JSON_TYPE.test(headers["content-type"] ?? "")) {
            throw new PlatformFailure(
              400,
              "badRequest",
              `Metadata part has an unsupported content type '${(headers["content-type"] ?? "None").slice(0, 100)}': send application/json first, then the media.`,
            );
          }
          metadata = checkInsertMetadata(body.toString("utf8"), ctx.kit.clock.now());
          takeInsertQuota(ctx, caller);
        },
        mediaStart(headers) {
          contentType = checkVideoMediaType(headers["content-type"]);
        },
        media(chunk) {
          if (digest.bytes + chunk.length > MAX_VIDEO_BYTES) {
            throw new PlatformFailure(
              413,
              "uploadTooLarge",
              `The video is larger than ${MAX_VIDEO_BYTES} bytes.`,
            );
          }
          digest.append(chunk);
        },
      },
      { maxMetadataBytes: MAX_METADATA_BYTES },
    );
  } catch (error) {
    if (error instanceof PlatformFailure) throw error;
    if (error instanceof MultipartProblem) throw new PlatformFailure(400, "badRequest", error.message);
    // The connection broke off: nothing is made (the client is gone; the answer is for the log).
    throw new PlatformFailure(400, "badRequest", "The upload broke off before the body was complete.");
  }
  if (!metadata) throw new PlatformFailure(400, "badRequest", "The multipart body has no metadata part.");
  const { resource } = finishUpload(
    ctx,
    caller,
    { metadata, contentType, uploadType: "multipart", bytes: digest.bytes, sha256: digest.finish() },
    parts,
  );
  return c.json(resource, 200);
}

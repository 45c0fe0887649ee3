import { requestHeader, streamRequestBody } from "@app/core";
import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { MediaDigest } from "../kit/digest.ts";
import { PlatformFailure } from "../kit/failure.ts";
import {
  checkVideoMediaType,
  defaultMetadata,
  finishUpload,
  MAX_VIDEO_BYTES,
  takeInsertQuota,
  type Uploader,
} from "./video-upload.ts";
import { checkDeclaredLength } from "./youtube-insert-multipart.ts";

/**
 * videos.insert with `uploadType=media`: the body is the video alone (its `Content-Type` a video
 * type), with or without a `Content-Length`; the video gets default metadata (private, category
 * 22), since a simple upload carries none.
 */
export async function insertMedia(
  c: Context,
  ctx: SandboxContext,
  caller: Uploader,
  parts: string[],
): Promise<Response> {
  const contentType = checkVideoMediaType(requestHeader(c, "content-type"));
  checkDeclaredLength(c, MAX_VIDEO_BYTES);
  takeInsertQuota(ctx, caller);
  const digest = new MediaDigest();
  try {
    await streamRequestBody(c, digest.sink(), { maxBytes: MAX_VIDEO_BYTES });
  } catch {
    throw new PlatformFailure(400, "badRequest", "The upload broke off before the body was complete.");
  }
  const { resource } = finishUpload(
    ctx,
    caller,
    {
      metadata: defaultMetadata(),
      contentType,
      uploadType: "media",
      bytes: digest.bytes,
      sha256: digest.finish(),
    },
    parts,
  );
  return c.json(resource, 200);
}

import { randomBytes } from "node:crypto";
import { requestHeader } from "@app/core";
import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { originOf, readBodyText } from "../kit/bodies.ts";
import { MediaDigest } from "../kit/digest.ts";
import { PlatformFailure } from "../kit/failure.ts";
import type { UploadSession } from "./state.ts";
import {
  checkInsertMetadata,
  checkVideoMediaType,
  MAX_METADATA_BYTES,
  MAX_VIDEO_BYTES,
  takeInsertQuota,
  type Uploader,
} from "./video-upload.ts";

function checkUploadHeaders(length: string | undefined, type: string | undefined) {
  if (length !== undefined && !/^\d{1,15}$/.test(length)) {
    throw new PlatformFailure(400, "badRequest", "X-Upload-Content-Length must be a whole number of bytes.");
  }
  if (length !== undefined && Number(length) > MAX_VIDEO_BYTES) {
    throw new PlatformFailure(413, "uploadTooLarge", `The upload is larger than ${MAX_VIDEO_BYTES} bytes.`);
  }
  const contentType = checkVideoMediaType(type ?? "application/octet-stream");
  return { declaredLength: length === undefined ? null : Number(length), contentType };
}

async function readMetadata(c: Context): Promise<string> {
  try {
    return await readBodyText(c, MAX_METADATA_BYTES);
  } catch (error) {
    if (error instanceof PlatformFailure && error.status === 413) {
      throw new PlatformFailure(400, "badRequest", "Metadata part is too large.");
    }
    throw error;
  }
}

/**
 * videos.insert with `uploadType=resumable`: the metadata is checked and a session opened; its
 * URI comes back in `Location` (200, empty body) and takes the bytes in PUTs.
 */
export async function startResumable(
  c: Context,
  ctx: SandboxContext,
  caller: Uploader,
  parts: string[],
): Promise<Response> {
  const upload = checkUploadHeaders(
    requestHeader(c, "x-upload-content-length"),
    requestHeader(c, "x-upload-content-type"),
  );
  const metadata = checkInsertMetadata(await readMetadata(c), ctx.kit.clock.now());
  takeInsertQuota(ctx, caller);
  const id = randomBytes(24).toString("base64url");
  const session: UploadSession = {
    id,
    clientId: caller.grant.clientId,
    channelId: caller.channel.id,
    channelTitle: caller.channel.title,
    parts,
    metadata,
    ...upload,
    total: upload.declaredLength,
    digest: new MediaDigest(),
    expiresAt: new Date(ctx.kit.clock.now().getTime() + ctx.settings.google.sessionTtlSeconds * 1000),
    video: null,
  };
  ctx.google.sessions.set(id, session);
  const location = `${originOf(c)}${new URL(c.req.url).pathname}?uploadType=resumable&part=${parts.join(",")}&upload_id=${id}`;
  return c.body(null, 200, { Location: location, "X-GUploader-UploadID": id });
}

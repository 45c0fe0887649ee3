import { randomBytes } from "node:crypto";
import type { ServiceApp } from "@app/core";
import { requestHeader } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { originOf, readJsonObject } from "../kit/bodies.ts";
import { MediaDigest } from "../kit/digest.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { mountOperation } from "../kit/operations.ts";
import { googleApiErrors } from "./errors.ts";
import type { UploadSession } from "./state.ts";
import { checkVideoMetadata, isMetadataProblem } from "./video-metadata.ts";
import { UPLOAD_SCOPES, youtubeCaller } from "./youtube-auth.ts";

export const UPLOAD_PATH = "/upload/youtube/v3/videos";
const PARTS = new Set([
  "snippet",
  "status",
  "id",
  "contentDetails",
  "fileDetails",
  "player",
  "recordingDetails",
]);
const DAY_MS = 86_400_000;

function checkParts(part: string | null): string[] {
  if (!part) throw new PlatformFailure(400, "required", "Required parameter: part");
  const parts = part.split(",").map((item) => item.trim());
  const unknown = parts.find((item) => !PARTS.has(item));
  if (unknown) throw new PlatformFailure(400, "unknownPart", `${unknown.slice(0, 40)}`);
  return parts;
}

function checkUploadHeaders(length: string | undefined, type: string | undefined) {
  if (length !== undefined && !/^\d{1,15}$/.test(length)) {
    throw new PlatformFailure(400, "badRequest", "X-Upload-Content-Length must be a whole number of bytes.");
  }
  const contentType = (type ?? "application/octet-stream").toLowerCase();
  if (!/^video\/[\w.+-]+$/.test(contentType) && contentType !== "application/octet-stream") {
    throw new PlatformFailure(400, "invalidVideoMediaType", "Media type not supported. Upload a video.");
  }
  return { declaredLength: length === undefined ? null : Number(length), contentType };
}

/** `POST /upload/youtube/v3/videos?uploadType=resumable`: videos.insert, opening a resumable session. */
export function registerYouTubeUploadStart(app: ServiceApp, ctx: SandboxContext): void {
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "youtube.videos.insert",
      platform: "youtube",
      method: "post",
      path: UPLOAD_PATH,
      summary: "Start a resumable upload (videos.insert): 200 with the session URI in Location",
      errors: googleApiErrors,
    },
    async (c) => {
      const url = new URL(c.req.url);
      const caller = youtubeCaller(c, ctx, UPLOAD_SCOPES);
      if (url.searchParams.get("uploadType") !== "resumable") {
        throw new PlatformFailure(400, "badRequest", "The sandbox takes uploadType=resumable only.");
      }
      if (!caller.channel) {
        throw new PlatformFailure(401, "youtubeSignupRequired", "Unauthorized");
      }
      const parts = checkParts(url.searchParams.get("part"));
      const upload = checkUploadHeaders(
        requestHeader(c, "x-upload-content-length"),
        requestHeader(c, "x-upload-content-type"),
      );
      const body = await readJsonObject(c, () => new PlatformFailure(400, "parseError", "Parse Error"));
      const metadata = checkVideoMetadata(body, ctx.kit.clock.now());
      if (isMetadataProblem(metadata)) throw new PlatformFailure(400, metadata.reason, metadata.message);
      const quota = ctx.limiter.take(
        `youtube.insert:${caller.grant.clientId}`,
        ctx.settings.google.uploadsPerDay,
        DAY_MS,
        ctx.kit.clock.now(),
      );
      if (!quota.allowed) {
        throw new PlatformFailure(
          403,
          "quotaExceeded",
          "The request cannot be completed because you have exceeded your quota.",
        );
      }
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
      const location = `${originOf(c)}${UPLOAD_PATH}?uploadType=resumable&part=${parts.join(",")}&upload_id=${id}`;
      return c.body(null, 200, { Location: location, "X-GUploader-UploadID": id });
    },
  );
}

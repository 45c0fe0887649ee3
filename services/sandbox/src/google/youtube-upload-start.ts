import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { mountOperation } from "../kit/operations.ts";
import { googleApiErrors } from "./errors.ts";
import { checkParts, INSERT_PARTS } from "./video-parts.ts";
import { UPLOAD_SCOPES, youtubeCaller } from "./youtube-auth.ts";
import { insertMedia } from "./youtube-insert-media.ts";
import { insertMultipart } from "./youtube-insert-multipart.ts";
import { startResumable } from "./youtube-insert-resumable.ts";

export const UPLOAD_PATH = "/upload/youtube/v3/videos";

/**
 * `POST /upload/youtube/v3/videos`: videos.insert in the three ways Google takes media
 * (`uploadType=resumable`, `multipart` or `media`; the discovery document's `mediaUpload`
 * protocols). Checked in Google's order: the token and its scope, the upload type, the channel,
 * `part`, then the body.
 */
export function registerYouTubeUploadStart(app: ServiceApp, ctx: SandboxContext): void {
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "youtube.videos.insert",
      platform: "youtube",
      method: "post",
      path: UPLOAD_PATH,
      summary:
        "videos.insert: open a resumable session (200, session URI in Location), or upload in one request (multipart: metadata then video; media: video only)",
      description:
        "Bodies stream: the video is hashed as it arrives and dropped, with or without a Content-Length (the official Node client sends multipart bodies chunked).",
      errors: googleApiErrors,
    },
    async (c) => {
      const url = new URL(c.req.url);
      const caller = youtubeCaller(c, ctx, UPLOAD_SCOPES);
      const uploadType = url.searchParams.get("uploadType");
      if (uploadType !== "resumable" && uploadType !== "multipart" && uploadType !== "media") {
        throw new PlatformFailure(
          400,
          "badRequest",
          `Invalid uploadType: '${(uploadType ?? "").slice(0, 40)}'. Use resumable, multipart or media.`,
        );
      }
      const channel = caller.channel;
      if (!channel) throw new PlatformFailure(401, "youtubeSignupRequired", "Unauthorized");
      const parts = checkParts(url.searchParams.getAll("part"), INSERT_PARTS);
      const uploader = { ...caller, channel };
      if (uploadType === "resumable") return startResumable(c, ctx, uploader, parts);
      if (uploadType === "multipart") return insertMultipart(c, ctx, uploader, parts);
      return insertMedia(c, ctx, uploader, parts);
    },
  );
}

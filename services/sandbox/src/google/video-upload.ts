import type { SandboxContext } from "../context.ts";
import { PlatformFailure } from "../kit/failure.ts";
import type { PublishedVideo, UploadType, VideoResource } from "./state.ts";
import { checkVideoMetadata, isMetadataProblem, type VideoMetadata } from "./video-metadata.ts";
import { publishVideo, renderVideo } from "./video-resource.ts";
import type { YouTubeCaller } from "./youtube-auth.ts";

/** videos.insert's largest media: the discovery document's `mediaUpload.maxSize` (256 GiB). */
export const MAX_VIDEO_BYTES = 274_877_906_944;
/** The most metadata the twin reads (Google documents no figure; its answer when over is quoted). */
export const MAX_METADATA_BYTES = 1024 * 1024;
const VIDEO_TYPE = /^video\/[\w.+-]+$/;

/** A caller with a channel: who may insert. */
export type Uploader = YouTubeCaller & { channel: NonNullable<YouTubeCaller["channel"]> };

/**
 * The media type of an upload, as videos.insert accepts it (`video/*` or
 * `application/octet-stream`, the reference page's "Accepted Media MIME types"); anything else is
 * Google's 400 `badRequest` "Media type '…' is not supported. Valid media types: [video/*,
 * application/octet-stream]".
 */
export function checkVideoMediaType(declared: string | undefined): string {
  const type = (declared ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (VIDEO_TYPE.test(type) || type === "application/octet-stream") return type;
  throw new PlatformFailure(
    400,
    "badRequest",
    `Media type '${(declared ?? "None").slice(0, 100)}' is not supported. Valid media types: [video/*, application/octet-stream]`,
  );
}

/** The metadata JSON of an insert, checked as YouTube checks it (400 `parseError`, `invalidTitle`, …). */
export function checkInsertMetadata(text: string, now: Date): VideoMetadata {
  let body: unknown;
  try {
    body = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    throw new PlatformFailure(400, "parseError", "Parse Error");
  }
  const metadata = checkVideoMetadata(body, now);
  if (isMetadataProblem(metadata)) throw new PlatformFailure(400, metadata.reason, metadata.message);
  return metadata;
}

/** Counts one insert against the client's daily uploads (403 `quotaExceeded` past it). */
export function takeInsertQuota(ctx: SandboxContext, caller: Uploader): void {
  if (!ctx.limits.youtubeInserts.take(caller.grant.clientId).allowed) {
    throw new PlatformFailure(
      403,
      "quotaExceeded",
      "The request cannot be completed because you have exceeded your quota.",
    );
  }
}

/** Makes the video of a one-request upload (multipart or media) and renders the insert's parts. */
export function finishUpload(
  ctx: SandboxContext,
  caller: Uploader,
  upload: {
    metadata: VideoMetadata;
    contentType: string;
    uploadType: UploadType;
    bytes: number;
    sha256: string;
  },
  parts: readonly string[],
): { video: PublishedVideo; resource: VideoResource } {
  if (upload.bytes === 0) {
    throw new PlatformFailure(400, "mediaBodyRequired", "The request does not include the video content.");
  }
  const video = publishVideo(
    { clientId: caller.grant.clientId, channel: caller.channel, ...upload },
    ctx.kit.clock.now(),
  );
  ctx.google.videos.push(video);
  return { video, resource: renderVideo(video, parts) };
}

/** A video's default metadata when the insert sent none (`uploadType=media`). */
export function defaultMetadata(): VideoMetadata {
  return {
    title: "unknown",
    description: "",
    tags: [],
    categoryId: "22",
    privacyStatus: "private",
    publishAt: null,
    selfDeclaredMadeForKids: null,
  };
}

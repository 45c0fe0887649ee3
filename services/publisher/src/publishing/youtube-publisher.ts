import { withAccessToken } from "../connections/token-vault.ts";
import { mediaForPlatform } from "../media/platform-media.ts";
import { sendRange } from "../media/staged-media.ts";
import { PlatformError } from "../platforms/errors.ts";
import type { UploadProgress } from "../platforms/youtube/youtube-client.ts";
import { youtubeTexts } from "./post-texts.ts";
import type { PlatformPublisherDeps, StepResult, TargetRun } from "./run-context.ts";

const QUARTER_MIB = 256 * 1024;
const CHUNK_RETRIES = 3;

/** The handle of a YouTube target: the resumable session, saved before any byte is sent. */
type YouTubeHandle = { sessionUri?: string };

/**
 * Publishes a video to YouTube with the resumable protocol. The session URI is saved before the
 * first byte; YouTube creates the video only when the last byte arrives, and a session makes at
 * most one video, so a retry or another worker resumes the same session from the offset the
 * status query reports and never uploads the video twice. An expired session never got its last
 * byte, so a new one is started.
 */
export async function publishToYouTube(run: TargetRun, deps: PlatformPublisherDeps): Promise<StepResult> {
  const { target } = run;
  const index = target.content.mediaItems.findIndex((item) => item.mediaType === "VIDEO");
  if (index < 0)
    throw new PlatformError("youtube", "permanent", "NO_VIDEO", "A YouTube post needs one video.");
  const media = await mediaForPlatform(deps.storage, await run.media(index), "youtube", "VIDEO");
  const youtube = deps.adapters.youtube;
  let sessionUri = (target.platformHandle as YouTubeHandle | null)?.sessionUri;
  let progress: UploadProgress = { kind: "expired" };
  if (sessionUri) progress = await youtube.queryUpload(sessionUri, media.size);
  if (progress.kind === "expired") {
    const texts = youtubeTexts(target.content);
    sessionUri = await withAccessToken(deps.vault, target.connectionId, ({ secrets }) =>
      youtube.startUpload(secrets.accessToken, {
        ...texts,
        privacy: target.content.youtube.privacy,
        size: media.size,
        contentType: media.contentType,
      }),
    );
    await run.saveHandle({ sessionUri } satisfies YouTubeHandle);
    progress = { kind: "incomplete", received: 0 };
  }
  const session = sessionUri as string;
  const chunkBytes = Math.max(
    QUARTER_MIB,
    Math.floor(deps.tuning.youtubeChunkBytes / QUARTER_MIB) * QUARTER_MIB,
  );
  let failures = 0;
  while (progress.kind === "incomplete") {
    run.checkClaim();
    const first: number = progress.received;
    const last = Math.min(first + chunkBytes, media.size) - 1;
    try {
      progress = await sendRange(media, { first, last }, (body) =>
        youtube.uploadChunk(session, { first, last, total: media.size, body }),
      );
      failures = 0;
      if (progress.kind !== "expired")
        await run.progress(
          first,
          progress.kind === "incomplete" ? progress.received : media.size,
          media.size,
        );
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      progress = await afterRefusedChunk(run, deps, session, media.size, first, error, ++failures);
    }
  }
  if (progress.kind === "expired") {
    await run.saveHandle({});
    throw new PlatformError(
      "youtube",
      "transient",
      "session_expired",
      "The upload session expired; starting again.",
    );
  }
  return {
    kind: "published",
    platformPostId: progress.videoId,
    url: `https://www.youtube.com/watch?v=${progress.videoId}`,
  };
}

/**
 * After a chunk failed, the session itself says where the upload stands, before anything is
 * failed: another worker (a stale one, whose lease ran out) may have sent bytes to the same
 * session, so a refused chunk ("the session holds N bytes") is resumed from what it holds, and a
 * session that completed is the published video. A chunk refused while the session stayed where it
 * was is the platform's answer (a transient one is retried a few times).
 */
async function afterRefusedChunk(
  run: TargetRun,
  deps: PlatformPublisherDeps,
  session: string,
  total: number,
  first: number,
  error: PlatformError,
  failures: number,
): Promise<UploadProgress> {
  run.checkClaim();
  const held = await deps.adapters.youtube.queryUpload(session, total);
  if (held.kind !== "incomplete") return held;
  const moved = held.received !== first;
  if (failures > CHUNK_RETRIES || (!moved && error.kind !== "transient")) throw error;
  return held;
}

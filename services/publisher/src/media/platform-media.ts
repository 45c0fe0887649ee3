import type { MediaItem, Platform } from "../contracts/post.ts";
import type { MediaStorage } from "../contracts/storage.ts";
import { fitImage } from "./fit/fit-image.ts";
import { imageProfileFor } from "./fit/image-profiles.ts";
import { MediaError } from "./media-error.ts";
import { type ByteSource, collect } from "./probe/byte-source.ts";
import { isoVideoFacts } from "./probe/iso-movie.ts";
import { type StagedMedia, stagedAt } from "./staged-media.ts";

/** Media as a platform gets it, with its picture's size when known (Bluesky's `aspectRatio`). */
export type PlatformMedia = StagedMedia & { width?: number; height?: number };

/** A staged file read by range, for the movie-header probe. */
function stagedSource(media: StagedMedia): ByteSource {
  return {
    size: media.size,
    async read(start, end) {
      const last = Math.min(end, media.size - 1);
      if (last < start) return Buffer.alloc(0);
      return collect(await media.read({ first: start, last }), last - start + 1);
    },
  };
}

/**
 * The copy of a staged media item that `platform` gets, once its bytes are found to be what the
 * post declared (an IMAGE or a VIDEO; a permanent `MediaError` otherwise): an image made to fit the platform (a
 * derived copy beside the original, made once: the API usually made it when the post was made),
 * a video as it is. Each comes with its picture's size when known: a fitted image's, an MP4's
 * from its movie header (rotation applied). The original is never changed.
 */
export async function mediaForPlatform(
  storage: MediaStorage,
  media: StagedMedia,
  platform: Platform,
  declared: MediaItem["mediaType"],
): Promise<PlatformMedia> {
  const actual = media.contentType.startsWith("video/") ? "VIDEO" : "IMAGE";
  if (actual !== declared) {
    // Checked when the post was made; media that was not (another host's, left to the workers)
    // is checked here, before any platform sees it.
    throw new MediaError(
      "MEDIA_NOT_ACCEPTED",
      `The media is declared ${declared} but the file is ${media.contentType}.`,
    );
  }
  const profile = imageProfileFor(platform);
  if (media.contentType.startsWith("image/") && profile) {
    const fitted = await fitImage(
      storage,
      { path: media.path, load: async (maxBytes) => collect(await media.read(), maxBytes) },
      profile,
    );
    return {
      ...stagedAt(storage, fitted.path, fitted.size, fitted.contentType),
      width: fitted.width,
      height: fitted.height,
    };
  }
  if (
    platform === "bluesky" &&
    (media.contentType === "video/mp4" || media.contentType === "video/quicktime")
  ) {
    const facts = await isoVideoFacts(
      stagedSource(media),
      media.contentType === "video/mp4" ? "mp4" : "mov",
    ).catch(() => undefined);
    if (facts?.video) return { ...media, width: facts.video.width, height: facts.video.height };
  }
  return media;
}

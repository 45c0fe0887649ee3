import type { Platform } from "../../contracts/post.ts";

/** A video container as the bytes show it. */
export type Container = "mp4" | "mov" | "webm";

/** A video codec family, from the sample entry's four-character code. */
export type CodecFamily = "h264" | "h265" | "vp8" | "vp9" | "av1" | "mpeg4" | string;

/** What a platform takes in a video: what cannot be fixed here, so it is refused when the post is made. */
export type VideoLimits = {
  containers: readonly Container[];
  /** Codec families taken; undefined when the platform transcodes whatever it gets. */
  codecs?: readonly CodecFamily[];
  maxBytes: number;
  /** The longest video; TikTok's creator may have a shorter one (`max_video_post_duration_sec`). */
  maxDurationSec: number;
  /** Each side of the picture, in pixels. */
  minSide?: number;
  maxSide?: number;
  minFps?: number;
  maxFps?: number;
};

/**
 * Video limits per platform, as each documents them:
 * - Bluesky: `app.bsky.embed.video` takes `video/mp4` only (the lexicon; a PDS sniffs the bytes),
 *   up to 100,000,000 bytes (the lexicon's former `maxSize`, still what older PDSes hold to; the
 *   current lexicon says 300 MB), and Bluesky's video service takes up to 3 minutes.
 * - TikTok (Content Posting API, Media Transfer Guide, "Video restrictions"): MP4, WebM or MOV;
 *   H.264, H.265, VP8 or VP9; 23–60 FPS; 360–4096 pixels each side; up to 4 GB; up to 10 minutes
 *   through the API, less when the creator's `max_video_post_duration_sec` says so.
 * - YouTube (videos.insert reference and "Supported YouTube file formats"): MP4, MOV and WebM are
 *   among its formats, any common codec, up to 256 GB or 12 hours.
 */
export const VIDEO_LIMITS: Record<Platform, VideoLimits> = {
  bluesky: { containers: ["mp4"], maxBytes: 100_000_000, maxDurationSec: 180 },
  tiktok: {
    containers: ["mp4", "mov", "webm"],
    codecs: ["h264", "h265", "vp8", "vp9"],
    maxBytes: 4 * 1024 ** 3,
    maxDurationSec: 600,
    minSide: 360,
    maxSide: 4096,
    minFps: 23,
    maxFps: 60,
  },
  youtube: { containers: ["mp4", "mov", "webm"], maxBytes: 256 * 1000 ** 3, maxDurationSec: 12 * 3600 },
};

/**
 * What an image may be for this service to make it fit a platform (decoding is bounded: a
 * hostile image cannot take the memory). Larger images are refused when the post is made.
 */
export const IMAGE_INPUT_LIMITS = {
  /** Bytes of the uploaded image file. */
  maxBytes: 50 * 1024 * 1024,
  /** Width × height: 50 megapixels (a 48 MP phone sensor's full-size photo fits). */
  maxPixels: 50_000_000,
  /**
   * The longer side: 16,384 pixels (a phone's sweep panorama is 10,800–12,000). Within 50 MP a
   * picture of 10,000,000 × 5 took 4 GB and seconds to shrink: libvips' buffers follow the width.
   */
  maxSide: 16_384,
  /**
   * Longer side over shorter: 20 to 1. Neither platform documents a ratio for images; Bluesky's app
   * shows at most 10:1 (bluesky-social/social-app#2131) and TikTok's photos fit 1080 × 1920; a
   * panorama (6:1 to 10:1) passes, a strip of a few pixels does not.
   */
  maxAspectRatio: 20,
  /**
   * Pixels decoded for one post: each image's width × height, once for each platform it is made to
   * fit. 600 MP: 35 photos of 12 MP to TikTok (420 MP), or 4 of 48 MP to Bluesky and TikTok (384 MP).
   */
  maxPixelsPerPost: 600_000_000,
} as const;

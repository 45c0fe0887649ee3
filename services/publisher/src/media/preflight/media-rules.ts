import type { Platform } from "../../contracts/post.ts";
import type { ImageFacts, MediaFacts, VideoFacts } from "./media-facts.ts";
import { IMAGE_INPUT_LIMITS, VIDEO_LIMITS } from "./media-limits.ts";

/** Why a platform cannot take a media file as it is and this service cannot fix it. */
export type MediaProblem = {
  message: string;
  /** The limit broken, named as in the answer (`{maxDurationSec: 60}`). */
  limit: Record<string, unknown>;
  /** What the file has (`{durationSec: 75.2}`). */
  value: Record<string, unknown>;
};

/** What a TikTok creator's `creator_info` says about videos. */
export type CreatorLimits = { maxVideoPostDurationSec?: number };

const NAMES: Record<Platform, string> = { bluesky: "Bluesky", tiktok: "TikTok", youtube: "YouTube" };

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

function videoProblem(
  platform: Platform,
  facts: VideoFacts,
  creator?: CreatorLimits,
): MediaProblem | undefined {
  const limits = VIDEO_LIMITS[platform];
  const name = NAMES[platform];
  if (!limits.containers.includes(facts.container)) {
    return {
      message: `${name} takes ${limits.containers.map((c) => c.toUpperCase()).join(", ")} videos, not ${facts.container.toUpperCase()}`,
      limit: { containers: limits.containers },
      value: { container: facts.container },
    };
  }
  if (facts.bytes > limits.maxBytes) {
    return {
      message: `${name} takes videos of at most ${limits.maxBytes} bytes`,
      limit: { maxBytes: limits.maxBytes },
      value: { bytes: facts.bytes },
    };
  }
  if (!facts.metadataRead) return undefined;
  if (!facts.video) {
    return { message: "The file has no video track", limit: { videoTracks: 1 }, value: { videoTracks: 0 } };
  }
  const { video } = facts;
  if (limits.codecs && !limits.codecs.includes(video.codec)) {
    return {
      message: `${name} takes ${limits.codecs.join(", ")} video, not ${video.codecString}`,
      limit: { codecs: limits.codecs },
      value: { codec: video.codecString },
    };
  }
  const creatorMax = creator?.maxVideoPostDurationSec;
  const maxDurationSec =
    creatorMax !== undefined && creatorMax > 0
      ? Math.min(creatorMax, limits.maxDurationSec)
      : limits.maxDurationSec;
  if (facts.durationSec === undefined) {
    // A movie whose header was read but says no duration (a fragmented file whose fragments
    // could not be read, a timescale of 0) could be of any length: refused, not waved through.
    return {
      message: `${name} takes videos of at most ${maxDurationSec} seconds; this one's duration cannot be read from its movie header`,
      limit: { maxDurationSec },
      value: { durationSec: null },
    };
  }
  if (facts.durationSec > maxDurationSec) {
    const whose = maxDurationSec === creatorMax ? `This ${name} account posts` : `${name} takes`;
    return {
      message: `${whose} videos of at most ${maxDurationSec} seconds; this one lasts ${round(facts.durationSec)}`,
      limit: { maxDurationSec },
      value: { durationSec: round(facts.durationSec, 3) },
    };
  }
  const sides = [video.width, video.height];
  if (
    (limits.minSide !== undefined && Math.min(...sides) < limits.minSide) ||
    (limits.maxSide !== undefined && Math.max(...sides) > limits.maxSide)
  ) {
    return {
      message: `${name} takes videos of ${limits.minSide}–${limits.maxSide} pixels on each side`,
      limit: { minSide: limits.minSide, maxSide: limits.maxSide },
      value: { width: video.width, height: video.height },
    };
  }
  if (
    video.fps !== undefined &&
    ((limits.minFps !== undefined && video.fps < limits.minFps - 0.5) ||
      (limits.maxFps !== undefined && video.fps > limits.maxFps + 0.5))
  ) {
    return {
      message: `${name} takes videos of ${limits.minFps}–${limits.maxFps} frames a second`,
      limit: { minFps: limits.minFps, maxFps: limits.maxFps },
      value: { fps: round(video.fps, 2) },
    };
  }
  return undefined;
}

function imageProblem(platform: Platform, facts: ImageFacts): MediaProblem | undefined {
  if (platform === "youtube") {
    return {
      message: "YouTube takes no images",
      limit: { mediaType: "VIDEO" },
      value: { mediaType: "IMAGE" },
    };
  }
  if (facts.bytes > IMAGE_INPUT_LIMITS.maxBytes) {
    return {
      message: `Images are made to fit ${NAMES[platform]} from files of at most ${IMAGE_INPUT_LIMITS.maxBytes} bytes`,
      limit: { maxBytes: IMAGE_INPUT_LIMITS.maxBytes },
      value: { bytes: facts.bytes },
    };
  }
  const pixels = facts.width * facts.height;
  if (pixels > IMAGE_INPUT_LIMITS.maxPixels) {
    return {
      message: `Images are made to fit ${NAMES[platform]} from at most ${IMAGE_INPUT_LIMITS.maxPixels} pixels`,
      limit: { maxPixels: IMAGE_INPUT_LIMITS.maxPixels },
      value: { pixels, width: facts.width, height: facts.height },
    };
  }
  if ((facts.pages ?? 1) > 1) {
    return {
      message: `${NAMES[platform]} takes still images; this ${facts.format.toUpperCase()} is animated (${facts.pages} frames). Post it as a video, or send one frame`,
      limit: { pages: 1 },
      value: { pages: facts.pages },
    };
  }
  const longSide = Math.max(facts.width, facts.height);
  if (longSide > IMAGE_INPUT_LIMITS.maxSide) {
    return {
      message: `Images are made to fit ${NAMES[platform]} from at most ${IMAGE_INPUT_LIMITS.maxSide} pixels a side; this one is ${facts.width} × ${facts.height}`,
      limit: { maxSide: IMAGE_INPUT_LIMITS.maxSide },
      value: { width: facts.width, height: facts.height },
    };
  }
  const aspectRatio = longSide / Math.min(facts.width, facts.height);
  if (aspectRatio > IMAGE_INPUT_LIMITS.maxAspectRatio) {
    return {
      message: `Images are made to fit ${NAMES[platform]} up to ${IMAGE_INPUT_LIMITS.maxAspectRatio}:1 (long side to short); this one is ${facts.width} × ${facts.height}`,
      limit: { maxAspectRatio: IMAGE_INPUT_LIMITS.maxAspectRatio },
      value: { aspectRatio: round(aspectRatio, 2), width: facts.width, height: facts.height },
    };
  }
  return undefined;
}

/**
 * Why `platform` cannot take this media file, or undefined when it can (as it is, or once made to
 * fit: images are always resized and re-encoded for Bluesky and TikTok, see `image-profiles.ts`).
 */
export function mediaProblemFor(
  platform: Platform,
  facts: MediaFacts,
  creator?: CreatorLimits,
): MediaProblem | undefined {
  return facts.kind === "video" ? videoProblem(platform, facts, creator) : imageProblem(platform, facts);
}

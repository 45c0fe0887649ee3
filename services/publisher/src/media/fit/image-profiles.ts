import type { Platform } from "../../contracts/post.ts";

/**
 * How an image is made to fit a platform: the box its picture must fit in (longer and shorter
 * side), the most bytes, and the output format. Images are always re-encoded, so EXIF orientation
 * is applied and every metadata block (GPS, camera, …) is left out.
 */
export type ImageProfile = {
  /** Part of every derived path: change it when the profile changes, so old copies are not reused. */
  id: string;
  platform: Platform;
  maxLongSide: number;
  maxShortSide: number;
  maxBytes: number;
  /** The output format for a source format (`jpeg` unless said otherwise). */
  outputFor(sourceFormat: string): "jpeg" | "webp";
};

/**
 * Bluesky: each image blob at most 1,000,000 bytes (`app.bsky.embed.images`, the lexicon's former
 * `maxSize`, which every PDS still accepts; the current lexicon allows 2 MB), JPEG, at most
 * 2000 pixels a side, as Bluesky's own app sends them.
 */
export const BLUESKY_IMAGE: ImageProfile = {
  id: "bluesky-v1",
  platform: "bluesky",
  maxLongSide: 2000,
  maxShortSide: 2000,
  maxBytes: 1_000_000,
  outputFor: () => "jpeg",
};

/**
 * TikTok photo posts (Media Transfer Guide, "Image restrictions"): WebP or JPEG, at most 1080p
 * (1920 × 1080 either way), at most 20 MB each. A WebP stays WebP; anything else (PNG, GIF)
 * becomes JPEG.
 */
export const TIKTOK_IMAGE: ImageProfile = {
  id: "tiktok-v1",
  platform: "tiktok",
  maxLongSide: 1920,
  maxShortSide: 1080,
  maxBytes: 20_000_000,
  outputFor: (sourceFormat) => (sourceFormat === "webp" ? "webp" : "jpeg"),
};

/** The image profile of a platform that takes images (YouTube takes none). */
export function imageProfileFor(platform: Platform): ImageProfile | undefined {
  if (platform === "bluesky") return BLUESKY_IMAGE;
  if (platform === "tiktok") return TIKTOK_IMAGE;
  return undefined;
}

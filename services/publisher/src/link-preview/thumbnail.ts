import sharp from "sharp";

/** The most bytes a link card's thumbnail may have (`app.bsky.embed.external`, `thumb.maxSize`). */
export const THUMB_MAX_BYTES = 1_000_000;
const MAX_EDGE = 1200;
const QUALITIES = [82, 70, 55, 40];

/**
 * An image made into a card thumbnail: oriented as its EXIF says, at most 1200 px a side, JPEG
 * without metadata, stepped down in quality until it fits {@link THUMB_MAX_BYTES}; undefined when
 * the bytes are not an image sharp reads (or are over 40 megapixels).
 */
export async function thumbnailOf(image: Buffer): Promise<Buffer | undefined> {
  try {
    for (const quality of QUALITIES) {
      const jpeg = await sharp(image, { limitInputPixels: 40_000_000, failOn: "error" })
        .rotate()
        .resize({ width: MAX_EDGE, height: MAX_EDGE, fit: "inside", withoutEnlargement: true })
        .jpeg({ quality, mozjpeg: true })
        .toBuffer();
      if (jpeg.length <= THUMB_MAX_BYTES) return jpeg;
    }
    return undefined;
  } catch {
    return undefined;
  }
}

import sharp from "sharp";
import { imageLimiter } from "../media/fit/fit-image.ts";
import { SNIFF_BYTES, sniffMediaType } from "../media/sniff.ts";

/** The most bytes a link card's thumbnail may have (`app.bsky.embed.external`, `thumb.maxSize`). */
export const THUMB_MAX_BYTES = 1_000_000;

/**
 * The largest picture made into a thumbnail: 12 megapixels (a 4000 × 3000 photo; a 4K frame is
 * 8.3). A card shows at most 1200 pixels a side, and pages size their `og:image` for it (1200 ×
 * 630 is the usual). The limit is what bounds a decode's memory: a PNG (interlaced, or not
 * shrunk while loading as JPEG is) is decoded whole, 4 bytes a pixel, so 48 MB at most here,
 * where 40 megapixels took 208 MB.
 */
export const THUMB_MAX_INPUT_PIXELS = 12_000_000;

/**
 * The formats a page's image may be in, sniffed from its bytes: the ones browsers show in a card.
 * Not SVG (a vector picture costs whatever CPU its author wants: nested `<use>` took seconds for
 * 1.4 KB), nor TIFF, HEIF, AVIF or anything else libvips happens to read.
 */
const SOURCE_TYPES: ReadonlySet<string> = new Set(["image/jpeg", "image/png", "image/webp", "image/gif"]);

const MAX_EDGE = 1200;
const QUALITIES = [82, 70, 55, 40];

/**
 * An image made into a card thumbnail: a JPEG, PNG, WebP or GIF (its first frame) of at most
 * {@link THUMB_MAX_INPUT_PIXELS}, oriented as its EXIF says, at most 1200 px a side, transparency
 * on white, JPEG without metadata, stepped down in quality until it fits {@link THUMB_MAX_BYTES};
 * undefined for anything else. The picture is decoded and shrunk once, then only the small one is
 * encoded at each quality; the work takes its turn in the image limiter the fitter uses.
 */
export function thumbnailOf(image: Buffer): Promise<Buffer | undefined> {
  const type = sniffMediaType(image.subarray(0, SNIFF_BYTES));
  if (type === undefined || !SOURCE_TYPES.has(type)) return Promise.resolve(undefined);
  return imageLimiter.run(() => render(image)).catch(() => undefined);
}

async function render(image: Buffer): Promise<Buffer | undefined> {
  const shrunk = await sharp(image, {
    limitInputPixels: THUMB_MAX_INPUT_PIXELS,
    failOn: "error",
    sequentialRead: true,
    autoOrient: true,
  })
    .resize({ width: MAX_EDGE, height: MAX_EDGE, fit: "inside", withoutEnlargement: true })
    .flatten({ background: "#ffffff" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height, channels } = shrunk.info;
  for (const quality of QUALITIES) {
    const jpeg = await sharp(shrunk.data, { raw: { width, height, channels } })
      .jpeg({ quality, mozjpeg: true })
      .toBuffer();
    if (jpeg.length <= THUMB_MAX_BYTES) return jpeg;
  }
  return undefined;
}

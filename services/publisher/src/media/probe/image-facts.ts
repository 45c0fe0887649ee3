import sharp from "sharp";
import { imageLimiter } from "../fit/fit-image.ts";
import type { ImageFacts } from "../preflight/media-facts.ts";
import { IMAGE_INPUT_LIMITS } from "../preflight/media-limits.ts";
import type { ByteSource } from "./byte-source.ts";

/** The header of an image (EXIF, dimensions) sits in its first bytes: read these first. */
const HEADER_BYTES = 512 * 1024;
const FORMATS = new Set(["jpeg", "png", "gif", "webp"]);

async function describe(
  bytes: Buffer,
): Promise<Pick<ImageFacts, "format" | "width" | "height" | "pages"> | undefined> {
  try {
    // Only the header is read: no pixel limit here, so a picture too large is told by its size
    // (the rules refuse it naming the limit), not as unreadable.
    const meta = await sharp(bytes, { failOn: "none", limitInputPixels: false }).metadata();
    if (!FORMATS.has(meta.format) || !meta.autoOrient.width || !meta.autoOrient.height) return undefined;
    return {
      format: meta.format as ImageFacts["format"],
      width: meta.autoOrient.width,
      height: meta.autoOrient.height,
      pages: meta.pages ?? 1,
    };
  } catch {
    return undefined;
  }
}

/**
 * An image's format, size as displayed (EXIF orientation applied) and frames, from its header: its
 * first 512 KiB, or the whole file (up to the input limit) when the header runs longer; that whole
 * read takes its turn in the image queue, as a fit does, so such files are read one at a time. Undefined when
 * the bytes are no image sharp can read. A file over the input limit is described by its header
 * alone (or by its size: the rules refuse it on that).
 */
export async function imageFacts(source: ByteSource): Promise<ImageFacts | undefined> {
  const head = await source.read(0, Math.min(source.size, HEADER_BYTES) - 1);
  let described = await describe(head);
  if (!described && source.size > HEADER_BYTES && source.size <= IMAGE_INPUT_LIMITS.maxBytes) {
    described = await imageLimiter.run(async () => describe(await source.read(0, source.size - 1)));
  }
  if (!described) {
    return source.size > IMAGE_INPUT_LIMITS.maxBytes
      ? { kind: "image", bytes: source.size, format: "jpeg", width: 0, height: 0 }
      : undefined;
  }
  return { kind: "image", bytes: source.size, ...described };
}

import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { THUMB_MAX_BYTES, THUMB_MAX_INPUT_PIXELS, thumbnailOf } from "../../src/link-preview/thumbnail.ts";
import { imageLimiter } from "../../src/media/fit/fit-image.ts";

/** A picture of one colour, `width` × `height`, in `format`. */
const flat = (width: number, height: number, format: "png" | "jpeg" | "webp" | "gif" | "tiff") =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 30 } } })
    .toFormat(format)
    .toBuffer();

describe("a link card's thumbnail", () => {
  it.for(["png", "jpeg", "webp", "gif"] as const)(
    "is made from a %s, as a JPEG within the card limit",
    async (format) => {
      const thumbnail = await thumbnailOf(await flat(1600, 900, format));
      expect(thumbnail?.length).toBeLessThanOrEqual(THUMB_MAX_BYTES);
      expect(await sharp(thumbnail as Buffer).metadata()).toMatchObject({
        format: "jpeg",
        width: 1200,
        height: 675,
      });
    },
  );

  it("is made from a transparent PNG on white, not black", async () => {
    const transparent = await sharp({
      create: { width: 40, height: 40, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .png()
      .toBuffer();
    const thumbnail = await thumbnailOf(transparent);
    const { data } = await sharp(thumbnail as Buffer)
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(Math.min(...data)).toBeGreaterThan(240);
  });

  it("is refused for an SVG (a vector picture can be made to cost any CPU time) and a TIFF", async () => {
    const svg = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400"><rect width="600" height="400" fill="red"/></svg>`,
    );
    expect(await thumbnailOf(svg)).toBeUndefined();
    expect(await thumbnailOf(await flat(60, 40, "tiff"))).toBeUndefined();
  });

  it(`is refused for a picture over ${THUMB_MAX_INPUT_PIXELS} pixels, and made at the limit`, async () => {
    expect(THUMB_MAX_INPUT_PIXELS).toBeLessThanOrEqual(12_000_000);
    expect(await thumbnailOf(await flat(5000, 3000, "png"))).toBeUndefined();
    expect(await thumbnailOf(await flat(4000, 3000, "png"))).toBeDefined();
  });

  it("takes its turn in the image limiter the fitter uses, so fits and thumbnails run one at a time", async () => {
    const image = await flat(300, 200, "jpeg");
    let release = () => {};
    const held = imageLimiter.run(() => new Promise<void>((resolve) => (release = resolve)));
    const thumbnail = thumbnailOf(image);
    expect(imageLimiter.waiting).toBe(1);
    release();
    await held;
    expect(await thumbnail).toBeDefined();
    expect(imageLimiter.active).toBe(0);
  });
});

import sharp from "sharp";

/**
 * A phone-like photo: 4032 × 3024 pixels stored sideways with EXIF orientation 6 (shown as
 * 3024 × 4032, portrait), camera and GPS tags, and noise so that it compresses like a photo
 * (about 3 MB).
 */
export function phonePhoto(): Promise<Buffer> {
  return sharp({
    create: {
      width: 4032,
      height: 3024,
      channels: 3,
      background: { r: 90, g: 120, b: 150 },
      noise: { type: "gaussian", mean: 128, sigma: 14 },
    },
  })
    .jpeg({ quality: 85 })
    .withExif({
      IFD0: { Make: "PhoneMaker", Model: "Phone 12" },
      IFD3: {
        GPSLatitudeRef: "N",
        GPSLatitude: "52/1 31/1 0/1",
        GPSLongitudeRef: "E",
        GPSLongitude: "13/1 24/1 0/1",
      },
    })
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

/** A PNG with transparency, `width` × `height`. */
export function pngImage(width: number, height: number, seed = 1): Promise<Buffer> {
  return sharp({
    create: { width, height, channels: 4, background: { r: (seed * 50) % 256, g: 80, b: 160, alpha: 0.5 } },
  })
    .png()
    .toBuffer();
}

/** A plain JPEG, `width` × `height`. */
export function jpegImage(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 100, b: 50 } } })
    .jpeg()
    .toBuffer();
}

/** A WebP, `width` × `height`. */
export function webpImage(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 20, g: 200, b: 50 } } })
    .webp()
    .toBuffer();
}

/** True when an EXIF block's first IFD points at a GPS IFD (tag 0x8825). */
export function hasGpsIfd(exif: Buffer | undefined): boolean {
  if (!exif) return false;
  const tiff = exif.subarray(exif.indexOf("Exif\0\0") === 0 ? 6 : 0);
  const little = tiff.toString("latin1", 0, 2) === "II";
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const ifd = u32(4);
  const entries = u16(ifd);
  for (let index = 0; index < entries; index += 1) {
    if (u16(ifd + 2 + index * 12) === 0x8825) return true;
  }
  return false;
}

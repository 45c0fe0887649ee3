import { readdir } from "node:fs/promises";
import { Readable } from "node:stream";
import sharp from "sharp";
import { beforeAll, describe, expect, test } from "vitest";
import { fitImage } from "../../src/media/fit/fit-image.ts";
import { BLUESKY_IMAGE, TIKTOK_IMAGE } from "../../src/media/fit/image-profiles.ts";
import { MediaError } from "../../src/media/media-error.ts";
import { collect } from "../../src/media/probe/byte-source.ts";
import { testStorage } from "../support.ts";
import { hasGpsIfd, phonePhoto, pngImage, webpImage } from "./images.ts";

async function store(
  storage: ReturnType<typeof testStorage>,
  path: string,
  bytes: Buffer,
  contentType: string,
) {
  await storage.write(path, Readable.from([bytes]), { contentType, expectedBytes: bytes.length });
}

const sourceAt = (storage: ReturnType<typeof testStorage>, path: string) => ({
  path,
  load: async (maxBytes: number) => collect((await storage.read(path)).stream, maxBytes),
});

const readAll = async (storage: ReturnType<typeof testStorage>, path: string) =>
  collect((await storage.read(path)).stream, 100 * 1024 * 1024);

describe("images made to fit a platform", () => {
  let photo: Buffer;
  beforeAll(async () => {
    photo = await phonePhoto();
  });

  test("a phone photo for Bluesky: at most 1,000,000 bytes, upright, 2000 px at most, no EXIF left", async () => {
    const before = await sharp(photo).metadata();
    expect(photo.length).toBeGreaterThan(2_000_000);
    expect(before.orientation).toBe(6);
    expect(hasGpsIfd(before.exif)).toBe(true);
    const storage = testStorage();
    await store(storage, "med_phone.jpg", photo, "image/jpeg");
    const fitted = await fitImage(storage, sourceAt(storage, "med_phone.jpg"), BLUESKY_IMAGE);
    expect(fitted).toMatchObject({ contentType: "image/jpeg", width: 1500, height: 2000 });
    expect(fitted.size).toBeLessThanOrEqual(1_000_000);
    const bytes = await readAll(storage, fitted.path);
    expect(bytes.length).toBe(fitted.size);
    const after = await sharp(bytes).metadata();
    expect(after).toMatchObject({ format: "jpeg", width: 1500, height: 2000 });
    expect(after.orientation).toBeUndefined();
    expect(after.exif).toBeUndefined();
    expect(hasGpsIfd(after.exif)).toBe(false);
    expect((await readAll(storage, "med_phone.jpg")).equals(photo)).toBe(true);
  });

  test("the same bytes give the same derived path, made once; other bytes another path", async () => {
    const storage = testStorage();
    await store(storage, "med_same.png", await pngImage(800, 600), "image/png");
    let writes = 0;
    const write = storage.write.bind(storage);
    storage.write = (...args) => {
      writes += 1;
      return write(...args);
    };
    const first = await fitImage(storage, sourceAt(storage, "med_same.png"), TIKTOK_IMAGE);
    const second = await fitImage(storage, sourceAt(storage, "med_same.png"), TIKTOK_IMAGE);
    expect(second).toEqual(first);
    expect(writes).toBe(1);
    expect(first.path).toMatch(/^med_same_fit-tiktok-v1-[0-9a-f]{16}\.jpg$/);
    await store(storage, "med_same.png", await pngImage(800, 600, 2), "image/png");
    const third = await fitImage(storage, sourceAt(storage, "med_same.png"), TIKTOK_IMAGE);
    expect(third.path).not.toBe(first.path);
  });

  test("a source fitted before is not loaded (nor hashed) again while its bytes are the same", async () => {
    const storage = testStorage();
    await store(storage, "med_again.png", await pngImage(800, 600), "image/png");
    let loads = 0;
    const counted = {
      path: "med_again.png",
      load: (maxBytes: number) => {
        loads += 1;
        return sourceAt(storage, "med_again.png").load(maxBytes);
      },
    };
    const first = await fitImage(storage, counted, TIKTOK_IMAGE);
    expect(await fitImage(storage, counted, TIKTOK_IMAGE)).toEqual(first);
    expect(loads).toBe(1);
    await store(storage, "med_again.png", await pngImage(800, 600, 7), "image/png");
    expect((await fitImage(storage, counted, TIKTOK_IMAGE)).path).not.toBe(first.path);
    expect(loads).toBe(2);
  });

  test("for TikTok a PNG becomes a JPEG and a WebP stays WebP, each within 1080p", async () => {
    const storage = testStorage();
    await store(storage, "med_wide.png", await pngImage(4000, 1000), "image/png");
    await store(storage, "med_tall.webp", await webpImage(1500, 3000), "image/webp");
    const png = await fitImage(storage, sourceAt(storage, "med_wide.png"), TIKTOK_IMAGE);
    expect(png).toMatchObject({ contentType: "image/jpeg", width: 1920, height: 480 });
    expect((await sharp(await readAll(storage, png.path)).metadata()).format).toBe("jpeg");
    const webp = await fitImage(storage, sourceAt(storage, "med_tall.webp"), TIKTOK_IMAGE);
    expect(webp).toMatchObject({ contentType: "image/webp", width: 960, height: 1920 });
  });

  test("a small image is not enlarged", async () => {
    const storage = testStorage();
    await store(storage, "med_small.png", await pngImage(300, 200), "image/png");
    expect(await fitImage(storage, sourceAt(storage, "med_small.png"), BLUESKY_IMAGE)).toMatchObject({
      width: 300,
      height: 200,
    });
  });

  test("a picture of more pixels than the limit is refused without decoding it, and nothing is stored", async () => {
    const storage = testStorage();
    // A PNG of 10,000 × 10,000 pixels compresses to a few hundred kB: a decompression bomb.
    const bomb = await sharp({
      create: { width: 10_000, height: 10_000, channels: 3, background: { r: 0, g: 0, b: 0 } },
    })
      .png()
      .toBuffer();
    await store(storage, "med_bomb.png", bomb, "image/png");
    const refused = await fitImage(storage, sourceAt(storage, "med_bomb.png"), BLUESKY_IMAGE).catch((e) => e);
    expect(refused).toBeInstanceOf(MediaError);
    expect(refused).toMatchObject({ code: "MEDIA_NOT_ACCEPTED", transient: false });
    expect(refused.message).toMatch(/pixel limit/);
    expect((await readdir(storage.options.dir)).filter((name) => name.includes("_fit-"))).toEqual([]);
  });

  test("bytes that are no image are refused as a permanent media error", async () => {
    const storage = testStorage();
    await store(storage, "med_fake.jpg", Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5]), "image/jpeg");
    await expect(fitImage(storage, sourceAt(storage, "med_fake.jpg"), BLUESKY_IMAGE)).rejects.toMatchObject({
      code: "MEDIA_NOT_ACCEPTED",
    });
  });
});

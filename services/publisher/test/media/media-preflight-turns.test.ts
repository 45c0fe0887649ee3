import { Readable } from "node:stream";
import sharp from "sharp";
import { describe, expect, test } from "vitest";
import type { MediaItem, PostContent } from "../../src/contracts/post.ts";
import { PublisherError } from "../../src/errors.ts";
import { FIT_BACKLOG_PER_ACCOUNT, imageLimiter } from "../../src/media/fit/fit-image.ts";
import { createMediaPreflight, MediaRefusal } from "../../src/media/preflight/media-preflight.ts";
import { testStorage } from "../support.ts";
import { pngImage } from "./images.ts";

type Storage = ReturnType<typeof testStorage>;

async function upload(storage: Storage, name: string, bytes: Buffer, contentType: string): Promise<string> {
  const path = `med_${name}`;
  await storage.write(path, Readable.from([bytes]), { contentType, expectedBytes: bytes.length });
  return storage.publicUrl(path);
}

/** The paths written by the preflight, in the order written (the derived copies). */
function writesOf(storage: Storage): string[] {
  const written: string[] = [];
  const write = storage.write.bind(storage);
  storage.write = (path, ...rest) => {
    written.push(path);
    return write(path, ...rest);
  };
  return written;
}

const contentWith = (urls: string[]): PostContent =>
  ({ mediaItems: urls.map((url): MediaItem => ({ url, mediaType: "IMAGE" })) }) as unknown as PostContent;

const tiktok = [{ connectionId: "conn_t", platform: "tiktok" as const }];
const fieldOf = (_item: MediaItem, index: number) => `mediaUrls.${index}`;

/** Holds the image limiter's one slot until the returned function is called. */
function holdLimiter(): () => void {
  let release = () => {};
  void imageLimiter.run(() => new Promise<void>((resolve) => (release = resolve)));
  return () => release();
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Lets the event loop run until `count` fits wait in the image limiter. */
async function untilWaiting(count: number): Promise<void> {
  while (imageLimiter.waiting < count) await settle();
}

describe("images made to fit when a post is made, per request and per account", () => {
  test("accounts take turns: another account's one photo is fitted before the rest of a long carousel", async () => {
    const storage = testStorage();
    const written = writesOf(storage);
    const preflight = createMediaPreflight({ storage });
    const carousel = [];
    for (let i = 0; i < 4; i += 1)
      carousel.push(await upload(storage, `a${i}.png`, await pngImage(64, 48, i + 1), "image/png"));
    const single = await upload(storage, "b.png", await pngImage(64, 48, 9), "image/png");
    written.length = 0;
    const release = holdLimiter();
    const a = preflight.check({
      content: contentWith(carousel),
      targets: tiktok,
      fieldOf,
      accountId: "acc_a",
    });
    await untilWaiting(4);
    const b = preflight.check({
      content: contentWith([single]),
      targets: tiktok,
      fieldOf,
      accountId: "acc_b",
    });
    await untilWaiting(5);
    release();
    await Promise.all([a, b]);
    expect(written.map((path) => path.slice(0, path.indexOf("_fit")))).toEqual([
      "med_a0",
      "med_b",
      "med_a1",
      "med_a2",
      "med_a3",
    ]);
  });

  test("once one image cannot be made to fit, the request's other fits waiting are not run", async () => {
    const storage = testStorage();
    const written = writesOf(storage);
    const preflight = createMediaPreflight({ storage });
    const whole = await pngImage(640, 480, 3);
    const broken = await upload(storage, "broken.png", whole.subarray(0, 200), "image/png");
    const others = [];
    for (let i = 0; i < 3; i += 1)
      others.push(await upload(storage, `ok${i}.png`, await pngImage(64, 48, i + 4), "image/png"));
    written.length = 0;
    const refusal = await preflight
      .check({ content: contentWith([broken, ...others]), targets: tiktok, fieldOf, accountId: "acc_c" })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(MediaRefusal);
    expect((refusal as MediaRefusal).code).toBe("CONTENT_NOT_ACCEPTED");
    await settle();
    expect(written).toEqual([]);
    expect(imageLimiter.waiting).toBe(0);
  });

  test("a request whose client went away runs none of its fits", async () => {
    const storage = testStorage();
    const written = writesOf(storage);
    const preflight = createMediaPreflight({ storage });
    const url = await upload(storage, "gone.png", await pngImage(64, 48, 5), "image/png");
    written.length = 0;
    const release = holdLimiter();
    const controller = new AbortController();
    const checking = preflight.check({
      content: contentWith([url]),
      targets: tiktok,
      fieldOf,
      accountId: "acc_d",
      signal: controller.signal,
    });
    await untilWaiting(1);
    controller.abort(new Error("the client closed the connection"));
    await expect(checking).rejects.toThrow("the client closed the connection");
    release();
    await settle();
    expect(written).toEqual([]);
  });

  test("an account with more images waiting than its backlog is answered 429 with Retry-After", async () => {
    const storage = testStorage();
    const preflight = createMediaPreflight({ storage });
    const url = await upload(storage, "many.png", await pngImage(64, 48, 6), "image/png");
    const release = holdLimiter();
    const first = preflight.check({
      content: contentWith(Array.from({ length: FIT_BACKLOG_PER_ACCOUNT }, () => url)),
      targets: tiktok,
      fieldOf,
      accountId: "acc_e",
    });
    await untilWaiting(FIT_BACKLOG_PER_ACCOUNT);
    const refused = await preflight
      .check({ content: contentWith([url]), targets: tiktok, fieldOf, accountId: "acc_e" })
      .catch((error: unknown) => error);
    const elsewhere = preflight.check({
      content: contentWith([url]),
      targets: tiktok,
      fieldOf,
      accountId: "acc_g",
    });
    release();
    await Promise.all([first, elsewhere]);
    expect(refused).toBeInstanceOf(PublisherError);
    const busy = refused as PublisherError;
    expect(busy.code).toBe("RATE_LIMITED");
    expect(busy.headers["Retry-After"]).toMatch(/^\d+$/);
    expect(busy.details).toMatchObject({ maxWaitingImages: FIT_BACKLOG_PER_ACCOUNT });
  });

  test("a post of more decoded pixels than the request's budget is refused before any is decoded", async () => {
    const storage = testStorage();
    const written = writesOf(storage);
    const preflight = createMediaPreflight({ storage });
    const big = await sharp({ create: { width: 7000, height: 7000, channels: 3, background: "#fff" } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    const urls = [];
    for (let i = 0; i < 13; i += 1) urls.push(await upload(storage, `big${i}.png`, big, "image/png"));
    written.length = 0;
    const refusal = await preflight
      .check({ content: contentWith(urls), targets: tiktok, fieldOf, accountId: "acc_f" })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(MediaRefusal);
    expect(refusal).toMatchObject({
      code: "CONTENT_NOT_ACCEPTED",
      details: { limit: { maxPixelsPerPost: 600_000_000 }, value: { pixels: 13 * 49_000_000 } },
    });
    expect(written).toEqual([]);
  });
});

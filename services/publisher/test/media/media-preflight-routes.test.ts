import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type { Database } from "@app/db";
import { json, test } from "@app/testkit";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { createRemoteImporter } from "../../src/media/remote-import.ts";
import { PlatformError } from "../../src/platforms/errors.ts";
import type { LocalDiskStorage } from "../../src/storage/local-disk.ts";
import { call, publisherApp, seedAccount, seedConnection, TEST_BASE, testStorage } from "../support.ts";
import { jpegImage, pngImage } from "./images.ts";
import { buildMp4, webmHead } from "./mp4-fixture.ts";

const EVERY_PRIVACY = ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY"];

/** Stores `bytes` as an upload would (`med_<name>`), and gives its public URL. */
async function upload(storage: LocalDiskStorage, name: string, bytes: Buffer, contentType: string) {
  const path = `med_${name}`;
  await storage.write(path, Readable.from([bytes]), { contentType, expectedBytes: bytes.length });
  return storage.publicUrl(path);
}

/** How many posts and targets the account has: nothing may be stored when a post is refused. */
async function storedRows(db: Database, accountId: string): Promise<{ posts: number; targets: number }> {
  const [row] = await db.query<{ posts: number; targets: number }>(
    `SELECT (SELECT count(*)::int FROM publisher.posts WHERE account_id = $1) AS posts,
       (SELECT count(*)::int FROM publisher.post_targets t JOIN publisher.posts p ON p.id = t.post_id
         WHERE p.account_id = $1) AS targets`,
    [accountId],
  );
  return row as { posts: number; targets: number };
}

describe("media checked against the bytes when the post is made", () => {
  test("an MP4 declared IMAGE and a JPEG declared VIDEO are 400s naming the field, and nothing is stored", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app, storage, publishing } = publisherApp(db);
    const mp4 = await upload(storage, "clip.mp4", buildMp4({ durationSec: 5 }), "video/mp4");
    const jpeg = await upload(storage, "photo.jpg", await jpegImage(64, 48), "image/jpeg");
    const asImage = await call(app, "POST", "/api/v1/publish", key, {
      caption: "hi",
      mediaItems: [{ url: mp4, mediaType: "IMAGE" }],
      connectionIds: [bluesky],
    });
    expect(asImage.status).toBe(400);
    expect(await json(asImage)).toMatchObject({
      error: "VALIDATION_FAILED",
      issues: [
        {
          path: "mediaItems.0",
          message: expect.stringContaining("declared IMAGE but the file is an MP4 video"),
        },
      ],
      declared: "IMAGE",
      detected: "video/mp4",
    });
    const asVideo = await call(app, "POST", "/api/v1/schedule", key, {
      videoUrl: jpeg,
      connectionIds: [bluesky],
      scheduledFor: "2026-07-01T10:00:00Z",
    });
    expect(asVideo.status).toBe(400);
    expect(await json(asVideo)).toMatchObject({
      error: "VALIDATION_FAILED",
      issues: [{ path: "videoUrl" }],
      detected: "image/jpeg",
    });
    expect(await storedRows(db, accountId)).toEqual({ posts: 0, targets: 0 });
    expect(publishing.calls).toEqual([]);
  });

  test("an empty file and bytes of no media type are 400s", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const youtube = await seedConnection(db, accountId, "youtube");
    const { app, storage } = publisherApp(db);
    const empty = await upload(storage, "empty.mp4", Buffer.alloc(0), "video/mp4");
    const text = await upload(storage, "text.mp4", Buffer.from("<html>not a video</html>"), "video/mp4");
    for (const [url, message] of [
      [empty, "empty"],
      [text, "not a JPEG, PNG, GIF, WebP, MP4, MOV or WebM file"],
    ]) {
      const res = await call(app, "POST", "/api/v1/publish", key, {
        videoUrl: url,
        connectionIds: [youtube],
      });
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({
        error: "VALIDATION_FAILED",
        issues: [{ path: "videoUrl", message: expect.stringContaining(message as string) }],
      });
    }
  });

  test("an MP4 without a movie header is a 400 before any platform sees it", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const youtube = await seedConnection(db, accountId, "youtube");
    const { app, storage } = publisherApp(db);
    const broken = Buffer.concat([
      Buffer.from([0, 0, 0, 0x18]),
      Buffer.from("ftypmp42"),
      Buffer.alloc(4000, 1),
    ]);
    const url = await upload(storage, "broken.mp4", broken, "video/mp4");
    const res = await call(app, "POST", "/api/v1/publish", key, { videoUrl: url, connectionIds: [youtube] });
    expect(await json(res)).toMatchObject({
      error: "VALIDATION_FAILED",
      issues: [{ path: "videoUrl", message: expect.stringContaining("no movie header") }],
    });
  });
});

describe("each target's platform checked when the post is made", () => {
  test("a WebM or a MOV to Bluesky is CONTENT_NOT_ACCEPTED naming the target, the limit and the value", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const youtube = await seedConnection(db, accountId, "youtube");
    const { app, storage } = publisherApp(db);
    const webm = await upload(storage, "clip.webm", webmHead(), "video/webm");
    const mov = await upload(
      storage,
      "clip.mov",
      buildMp4({ durationSec: 4, brand: "qt  " }),
      "video/quicktime",
    );
    for (const [url, container] of [
      [webm, "webm"],
      [mov, "mov"],
    ]) {
      const res = await call(app, "POST", "/api/v1/publish", key, {
        videoUrl: url,
        connectionIds: [youtube, bluesky],
      });
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({
        error: "CONTENT_NOT_ACCEPTED",
        connectionId: bluesky,
        platform: "bluesky",
        url,
        limit: { containers: ["mp4"] },
        value: { container },
      });
    }
    const ok = await call(app, "POST", "/api/v1/publish", key, { videoUrl: mov, connectionIds: [youtube] });
    expect(ok.status).toBe(200);
  });

  test("a video longer than the TikTok creator's maximum is a 400 before anything is stored as a post", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const tiktok = await seedConnection(db, accountId, "tiktok");
    const asked: string[] = [];
    const { app, storage, publishing } = publisherApp(db, {
      tiktokCreator: async (connectionId) => {
        asked.push(connectionId);
        return { privacyLevelOptions: EVERY_PRIVACY, maxVideoPostDurationSec: 60 };
      },
    });
    const long = await upload(storage, "long.mp4", buildMp4({ durationSec: 75.2 }), "video/mp4");
    for (const [path, extra] of [
      ["/api/v1/publish", {}],
      ["/api/v1/schedule", { scheduledFor: "2026-07-01T10:00:00Z" }],
      ["/api/v1/queue", {}],
    ] as const) {
      const res = await call(app, "POST", path, key, { videoUrl: long, connectionIds: [tiktok], ...extra });
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({
        error: "CONTENT_NOT_ACCEPTED",
        connectionId: tiktok,
        platform: "tiktok",
        limit: { maxDurationSec: 60 },
        value: { durationSec: 75.2 },
      });
    }
    expect(asked).toEqual([tiktok, tiktok, tiktok]);
    expect(await storedRows(db, accountId)).toEqual({ posts: 0, targets: 0 });
    expect(publishing.calls).toEqual([]);
    const short = await upload(storage, "short.mp4", buildMp4({ durationSec: 59 }), "video/mp4");
    const ok = await call(app, "POST", "/api/v1/publish", key, { videoUrl: short, connectionIds: [tiktok] });
    expect(ok.status).toBe(200);
    expect(await storedRows(db, accountId)).toEqual({ posts: 1, targets: 1 });
  });

  test("an H.263 video to TikTok names its codec", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const tiktok = await seedConnection(db, accountId, "tiktok");
    const { app, storage } = publisherApp(db);
    const url = await upload(storage, "h263.mp4", buildMp4({ durationSec: 5, codec: "s263" }), "video/mp4");
    const res = await call(app, "POST", "/api/v1/publish", key, { videoUrl: url, connectionIds: [tiktok] });
    expect(await json(res)).toMatchObject({
      error: "CONTENT_NOT_ACCEPTED",
      limit: { codecs: ["h264", "h265", "vp8", "vp9"] },
      value: { codec: "s263" },
    });
  });

  test("a PNG carousel to TikTok is accepted and made to fit; the original is still served unchanged", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const tiktok = await seedConnection(db, accountId, "tiktok");
    const { app, storage } = publisherApp(db);
    const originals = [await pngImage(3000, 2000, 1), await pngImage(640, 480, 2)];
    const urls = [
      await upload(storage, "a.png", originals[0] as Buffer, "image/png"),
      await upload(storage, "b.png", originals[1] as Buffer, "image/png"),
    ];
    const res = await call(app, "POST", "/api/v1/publish", key, { mediaUrls: urls, connectionIds: [tiktok] });
    expect(res.status).toBe(200);
    for (const [index, name] of ["med_a", "med_b"].entries()) {
      const fitted = (await storedPaths(storage)).find((path) => path.startsWith(`${name}_fit-tiktok-v1-`));
      expect(fitted).toMatch(/\.jpg$/);
      const head = await storage.head(fitted as string);
      expect(head.contentType).toBe("image/jpeg");
      const served = await app.request(`/media/${name}.png`);
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(originals[index] as Buffer)).toBe(true);
    }
    const post = await json(await call(app, "GET", `/api/v1/posts/${(await json(res)).postId}`, key));
    expect(post.media_items).toEqual(urls.map((url) => ({ url, mediaType: "IMAGE" })));
  });

  test("an image of more pixels than can be decoded safely is refused with its pixel count", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app, storage } = publisherApp(db);
    const huge = await sharp({ create: { width: 9000, height: 6000, channels: 3, background: "#000" } })
      .png()
      .toBuffer();
    const url = await upload(storage, "huge.png", huge, "image/png");
    const res = await call(app, "POST", "/api/v1/publish", key, {
      mediaUrls: [url],
      connectionIds: [bluesky],
    });
    expect(await json(res)).toMatchObject({
      error: "CONTENT_NOT_ACCEPTED",
      platform: "bluesky",
      limit: { maxPixels: 50_000_000 },
      value: { pixels: 54_000_000 },
    });
  });
});

describe("a TikTok connection found dead while the post is checked", () => {
  test("is refused on the same request as INVALID_CONNECTION, and nothing is stored", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const tiktok = await seedConnection(db, accountId, "tiktok");
    const { app, storage } = publisherApp(db, {
      tiktokCreator: async () => {
        throw new PlatformError(
          "tiktok",
          "reconnect",
          "CONNECTION_NEEDS_RECONNECT",
          "invalid_grant: revoked",
        );
      },
    });
    const url = await upload(storage, "fine.mp4", buildMp4({ durationSec: 5 }), "video/mp4");
    const res = await call(app, "POST", "/api/v1/publish", key, { videoUrl: url, connectionIds: [tiktok] });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      error: "INVALID_CONNECTION",
      connectionId: tiktok,
      platform: "tiktok",
      reason: "needs_reconnect",
    });
    expect(await storedRows(db, accountId)).toEqual({ posts: 0, targets: 0 });
  });

  test("an unreachable creator_info still lets the post through (the platform has the last word)", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const tiktok = await seedConnection(db, accountId, "tiktok");
    const { app, storage } = publisherApp(db, {
      tiktokCreator: async () => {
        throw new PlatformError("tiktok", "transient", "internal_error", "TikTok is down");
      },
    });
    const url = await upload(storage, "ok.mp4", buildMp4({ durationSec: 5 }), "video/mp4");
    const res = await call(app, "POST", "/api/v1/publish", key, { videoUrl: url, connectionIds: [tiktok] });
    expect(res.status).toBe(200);
  });
});

describe("media at another host, imported when the post is made", () => {
  let server: Server;
  let origin: string;
  const files = new Map<string, { bytes: Buffer; type: string }>();
  beforeAll(async () => {
    files.set("/photo.jpg", { bytes: await jpegImage(400, 300), type: "image/jpeg" });
    files.set("/really-a-video.jpg", { bytes: buildMp4({ durationSec: 3 }), type: "image/jpeg" });
    server = createServer((req, res) => {
      const file = files.get(req.url ?? "");
      if (!file) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": file.type, "content-length": file.bytes.length }).end(file.bytes);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const appWithImporter = (db: Database) => {
    const storage = testStorage();
    const importRemoteMedia = createRemoteImporter(storage, { trustedOrigins: [origin] });
    return { app: publisherApp(db, { storage, importRemoteMedia }).app, storage };
  };

  test("a remote image is copied into our storage and the post refers to the copy", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app, storage } = appWithImporter(db);
    const res = await call(app, "POST", "/api/v1/publish", key, {
      mediaUrls: [`${origin}/photo.jpg`],
      connectionIds: [bluesky],
    });
    expect(res.status).toBe(200);
    const post = await json(await call(app, "GET", `/api/v1/posts/${(await json(res)).postId}`, key));
    const [item] = post.media_items as { url: string; mediaType: string }[];
    expect(item?.url).toMatch(new RegExp(`^${TEST_BASE}/media/med_[A-Za-z0-9_-]+\\.jpg$`));
    const copy = storage.pathOf(item?.url as string) as string;
    const served = await app.request(`/media/${copy}`);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(files.get("/photo.jpg")?.bytes);
  });

  test("a remote file whose bytes contradict its type, or that is missing, is a 400 naming the field", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const tiktok = await seedConnection(db, accountId, "tiktok");
    const { app } = appWithImporter(db);
    const mismatch = await call(app, "POST", "/api/v1/publish", key, {
      mediaUrls: [`${origin}/photo.jpg`, `${origin}/really-a-video.jpg`],
      connectionIds: [tiktok],
    });
    expect(await json(mismatch)).toMatchObject({
      error: "VALIDATION_FAILED",
      issues: [{ path: "mediaUrls.1", message: expect.stringContaining("declared IMAGE") }],
    });
    const missing = await call(app, "POST", "/api/v1/publish", key, {
      mediaUrls: [`${origin}/gone.jpg`],
      connectionIds: [tiktok],
    });
    expect(await json(missing)).toMatchObject({
      error: "VALIDATION_FAILED",
      issues: [{ path: "mediaUrls.0", message: expect.stringContaining("answered 404") }],
      reason: "MEDIA_UNAVAILABLE",
    });
  });
});

/** Every object path in a local store. */
async function storedPaths(storage: LocalDiskStorage): Promise<string[]> {
  const { readdir } = await import("node:fs/promises");
  return (await readdir(storage.options.dir)).filter(
    (name) => !name.endsWith(".meta.json") && !name.startsWith("."),
  );
}

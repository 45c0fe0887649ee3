import { readdir } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type { Database } from "@app/db";
import { json, test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { PostContent } from "../../src/contracts/post.ts";
import { createMediaPreflight, MediaRefusal } from "../../src/media/preflight/media-preflight.ts";
import { createRemoteImporter, type RemoteImporter } from "../../src/media/remote-import.ts";
import type { LocalDiskStorage } from "../../src/storage/local-disk.ts";
import { call, publisherApp, seedAccount, seedConnection, testStorage } from "../support.ts";
import { jpegImage, pngImage } from "./images.ts";
import { webmHead } from "./mp4-fixture.ts";

/** Every object a local store holds. */
async function storedPaths(storage: LocalDiskStorage): Promise<string[]> {
  return (await readdir(storage.options.dir)).filter(
    (name) => !name.endsWith(".meta.json") && !name.startsWith("."),
  );
}

async function mediaRows(db: Database) {
  return db.query<{ id: string; account_id: string; path: string; content_type: string; size_bytes: string }>(
    "SELECT id, account_id, path, content_type, size_bytes::text, complete FROM publisher.media ORDER BY path",
  );
}

describe("media imported when a post is made", () => {
  let server: Server;
  let origin: string;
  const files = new Map<string, Buffer>();
  beforeAll(async () => {
    files.set("/photo.jpg", await jpegImage(400, 300));
    files.set("/other.jpg", await jpegImage(300, 200));
    files.set("/fine.png", await pngImage(640, 480, 2));
    files.set("/broken.png", (await pngImage(640, 480, 3)).subarray(0, 200));
    files.set("/clip.webm", Buffer.concat([webmHead(), Buffer.alloc(64 * 1024)]));
    server = createServer((req, res) => {
      const bytes = files.get(req.url ?? "");
      if (!bytes) return void res.writeHead(404).end();
      res.writeHead(200, { "content-length": bytes.length }).end(bytes);
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

  test("a refused post leaves none of its imported copies behind", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app, storage } = appWithImporter(db);
    // A WebM is imported, then refused by Bluesky (MP4 only).
    const res = await call(app, "POST", "/api/v1/publish", key, {
      mediaItems: [{ url: `${origin}/clip.webm`, mediaType: "VIDEO" }],
      connectionIds: [bluesky],
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error: "CONTENT_NOT_ACCEPTED" });
    expect(await storedPaths(storage)).toEqual([]);
    expect(await mediaRows(db)).toEqual([]);
  });

  test("a post refused on a later item deletes the copies already imported", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const tiktok = await seedConnection(db, accountId, "tiktok");
    const { app, storage } = appWithImporter(db);
    const res = await call(app, "POST", "/api/v1/publish", key, {
      mediaUrls: [`${origin}/photo.jpg`, `${origin}/other.jpg`, `${origin}/missing.jpg`],
      connectionIds: [tiktok],
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ issues: [{ path: "mediaUrls.2" }] });
    expect(await storedPaths(storage)).toEqual([]);
  });

  test("a post refused while its images are made to fit deletes the fitted copies of its imports too", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const tiktok = await seedConnection(db, accountId, "tiktok");
    const { app, storage } = appWithImporter(db);
    const res = await call(app, "POST", "/api/v1/publish", key, {
      mediaUrls: [`${origin}/fine.png`, `${origin}/broken.png`],
      connectionIds: [tiktok],
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      error: "CONTENT_NOT_ACCEPTED",
      url: expect.stringContaining("/media/med_"),
    });
    expect(await storedPaths(storage)).toEqual([]);
  });

  test("an accepted post's imports are recorded as the account's media", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app, storage } = appWithImporter(db);
    const res = await call(app, "POST", "/api/v1/publish", key, {
      mediaUrls: [`${origin}/photo.jpg`],
      connectionIds: [bluesky],
    });
    expect(res.status).toBe(200);
    const post = await json(await call(app, "GET", `/api/v1/posts/${(await json(res)).postId}`, key));
    const path = storage.pathOf((post.media_items as { url: string }[])[0]?.url as string) as string;
    expect(await mediaRows(db)).toEqual([
      {
        id: path.replace(/\.jpg$/, ""),
        account_id: accountId,
        path,
        content_type: "image/jpeg",
        size_bytes: String(files.get("/photo.jpg")?.length),
        complete: true,
      },
    ]);
  });

  test("the bytes one post may import are capped: past the cap it is a 400 naming the limit, nothing kept", async () => {
    const storage = testStorage();
    const photo = files.get("/photo.jpg") as Buffer;
    const limit = photo.length + 10;
    const preflight = createMediaPreflight({
      storage,
      importRemote: createRemoteImporter(storage, { trustedOrigins: [origin] }),
      importLimits: { maxBytesPerPost: limit },
    });
    const refusal = await preflight
      .check({
        content: contentWith([`${origin}/photo.jpg`, `${origin}/photo.jpg`]),
        targets: [{ connectionId: "conn_1", platform: "tiktok" }],
        fieldOf: (_item, index) => `mediaUrls.${index}`,
      })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(MediaRefusal);
    expect((refusal as MediaRefusal).details).toMatchObject({
      issues: [{ message: expect.stringContaining(`at most ${limit} bytes`) }],
      reason: "MEDIA_TOO_LARGE",
      limit: { maxImportBytesPerPost: limit },
    });
    expect(await storedPaths(storage)).toEqual([]);
  });

  test("imports run a few at a time, not one after another", async () => {
    const storage = testStorage();
    const photo = files.get("/photo.jpg") as Buffer;
    let running = 0;
    let most = 0;
    let calls = 0;
    const importRemote: RemoteImporter = async () => {
      calls += 1;
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      const path = `med_fake${calls}.jpg`;
      await storage.write(path, Readable.from([photo]), {
        contentType: "image/jpeg",
        expectedBytes: photo.length,
      });
      running -= 1;
      return { path, contentType: "image/jpeg", sizeBytes: photo.length };
    };
    const preflight = createMediaPreflight({ storage, importRemote });
    await preflight.check({
      content: contentWith([1, 2, 3, 4, 5].map((n) => `https://elsewhere.example/${n}.jpg`)),
      targets: [],
      fieldOf: (_item, index) => `mediaUrls.${index}`,
    });
    expect(calls).toBe(5);
    expect(most).toBe(3);
  });
});

/** Post content of images at `urls`. */
function contentWith(urls: string[]): PostContent {
  return {
    mediaItems: urls.map((url) => ({ url, mediaType: "IMAGE" as const })),
    youtube: { privacy: "private" },
    tiktok: {
      postMode: "DIRECT_POST",
      privacy: "SELF_ONLY",
      commercialType: 0,
      disableComment: false,
      disableDuet: false,
      disableStitch: false,
    },
  };
}

import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningServer, serveApp } from "@app/core";
import type { Database } from "@app/db";
import { DEMO_TIKTOK } from "@app/sandbox/demo";
import { silentLogger, test } from "@app/testkit";
import sharp from "sharp";
import { afterAll, describe, expect } from "vitest";
import { createApp } from "../../src/app.ts";
import { completeConnect, startConnect } from "../../src/connections/connect-flows.ts";
import { approveOnSandbox, DEMO_ACCOUNT_ID, type PublisherDemo, sandboxAdapters } from "../../src/demo.ts";
import type { PublishingService } from "../../src/publishing/index.ts";
import { LocalDiskStorage } from "../../src/storage/local-disk.ts";
import {
  type Sandbox,
  sandboxGet,
  sandboxPost,
  seedDemo,
  startSandbox,
  testPublishing,
  testSealer,
} from "../publishing-support.ts";
import { sendBytes, TEST_CREDENTIALS } from "../support.ts";
import { hasGpsIfd, phonePhoto, pngImage } from "./images.ts";
import { buildMp4 } from "./mp4-fixture.ts";

type Blob = { sha256: string; size: number; mimeType: string };
type Records = { records: { rkey: string; value: Record<string, unknown> }[]; blobs: Blob[] };
type TikTokPost = {
  publishId: string;
  publicPostId: string | null;
  mediaType: string;
  status: string;
  media: { bytes?: number; sha256: string | null }[];
};

/** The fields of an answer these tests read. */
type PostAnswer = { platforms: { platformPostId: string }[] } & Record<string, unknown>;

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/**
 * The publisher served on loopback (its storage public at its own `/media/`, as in production),
 * real publishing and the TikTok creator check on the platform sandbox, whose TikTok pulls photos
 * from the publisher's URL.
 */
type World = {
  server: RunningServer;
  sandbox: Sandbox;
  storage: LocalDiskStorage;
  publishing: PublishingService;
  demo: PublisherDemo;
};

let world: World | undefined;

async function worldFor(db: Database): Promise<World> {
  if (world) return world;
  const sandbox = await startSandbox();
  let base = "";
  const storage = new LocalDiskStorage({
    dir: mkdtempSync(join(tmpdir(), "publisher-media-e2e-")),
    publicBaseUrl: () => base,
    credentials: TEST_CREDENTIALS,
  });
  const publishing = testPublishing({ db, sandboxUrl: sandbox.url, storage });
  const app = createApp({
    db,
    logger: silentLogger(),
    storage,
    publishing,
    tiktokCreator: (connectionId) => publishing.tiktokCreator(connectionId),
  });
  const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
  base = server.url;
  await sandboxPost(
    sandbox.url,
    "/_sandbox/settings",
    { tiktokVerifiedUrlPrefixes: [`${base}/media/`] },
    "PATCH",
  );
  const demo = await seedDemo(db, sandbox.url);
  world = { server, sandbox, storage, publishing, demo };
  return world;
}

afterAll(async () => {
  await world?.server.close();
  await world?.sandbox.close();
  world = undefined;
});

/** `POST /api/v1/upload` of `bytes` as `name`; the stored path. */
async function uploadTo(w: World, name: string, bytes: Buffer, contentType: string): Promise<string> {
  const res = await sendBytes(
    w.server,
    "POST",
    "/api/v1/upload",
    { "x-api-key": w.demo.apiKey, "x-filename": name, "content-type": contentType },
    bytes,
  );
  expect(res.status).toBe(200);
  return (JSON.parse(res.text) as { path: string }).path;
}

async function postTo(w: World, path: string, body: unknown): Promise<{ status: number; body: PostAnswer }> {
  const res = await fetch(`${w.server.url}${path}`, {
    method: "POST",
    headers: { "x-api-key": w.demo.apiKey, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as PostAnswer };
}

async function storedBytes(w: World, path: string): Promise<Buffer> {
  const res = await fetch(`${w.server.url}/media/${path}`);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

const fittedCopyOf = async (w: World, path: string, profile: string) =>
  (await readdir(w.storage.options.dir)).find(
    (name) =>
      name.startsWith(`${path.replace(/\.[a-z0-9]+$/, "")}_fit-${profile}-`) && !name.endsWith(".json"),
  );

/** A connection of the demo account to the sandbox's private TikTok creator (60 s videos at most). */
async function connectPrivateCreator(db: Database, w: World): Promise<string> {
  const deps = {
    db,
    clock: { now: () => new Date() },
    sealer: testSealer(),
    adapters: sandboxAdapters(w.sandbox.url),
    publicUrl: "http://127.0.0.1:3002",
    blueskyService: w.sandbox.url,
  };
  const { authorizeUrl } = await startConnect(deps as never, {
    accountId: DEMO_ACCOUNT_ID,
    platform: "tiktok",
  });
  const granted = await approveOnSandbox(authorizeUrl, DEMO_TIKTOK.creators.private.openId);
  return (await completeConnect(deps as never, { platform: "tiktok", ...granted })).id;
}

const postCount = async (db: Database) =>
  (
    (await db.query<{ count: number }>(
      "SELECT count(*)::int AS count FROM publisher.posts WHERE account_id = $1",
      [DEMO_ACCOUNT_ID],
    )) as [{ count: number }]
  )[0].count;

describe("media made to fit each platform, end to end", () => {
  test("a 3 MB phone photo posted to Bluesky ends as a blob of at most 1,000,000 bytes, upright, without GPS", async ({
    db,
  }) => {
    const w = await worldFor(db);
    const photo = await phonePhoto();
    expect(photo.length).toBeGreaterThan(2_500_000);
    expect(hasGpsIfd((await sharp(photo).metadata()).exif)).toBe(true);
    const path = await uploadTo(w, "IMG_0001.jpg", photo, "image/jpeg");
    const answer = await postTo(w, "/api/v1/publish", {
      caption: "From my phone",
      mediaUrls: [w.storage.publicUrl(path)],
      connectionIds: [w.demo.connections.bluesky],
    });
    expect(answer).toMatchObject({ status: 200, body: { allPublished: true } });
    const platformPostId = answer.body.platforms[0]?.platformPostId ?? "";
    const { records, blobs } = await sandboxGet<Records>(w.sandbox.url, "/_sandbox/bluesky/records");
    const record = records.find((candidate) => platformPostId.endsWith(candidate.rkey));
    const embed = record?.value.embed as {
      $type: string;
      images: { image: { mimeType: string; size: number }; aspectRatio: { width: number; height: number } }[];
    };
    expect(embed.$type).toBe("app.bsky.embed.images");
    expect(embed.images[0]?.aspectRatio).toEqual({ width: 1500, height: 2000 });
    expect(embed.images[0]?.image.mimeType).toBe("image/jpeg");
    expect(embed.images[0]?.image.size).toBeLessThanOrEqual(1_000_000);
    const fitted = await fittedCopyOf(w, path, "bluesky-v1");
    const sent = await storedBytes(w, fitted as string);
    expect(blobs.map((blob) => blob.sha256)).toContain(sha256(sent));
    const meta = await sharp(sent).metadata();
    expect(meta).toMatchObject({ width: 1500, height: 2000 });
    expect(meta.exif).toBeUndefined();
    expect(sha256(await storedBytes(w, path))).toBe(sha256(photo));
  });

  test("a Bluesky video carries the aspect ratio of its picture", async ({ db }) => {
    const w = await worldFor(db);
    const path = await uploadTo(
      w,
      "clip.mp4",
      buildMp4({ durationSec: 6, width: 720, height: 1280 }),
      "video/mp4",
    );
    const answer = await postTo(w, "/api/v1/publish", {
      videoUrl: w.storage.publicUrl(path),
      connectionIds: [w.demo.connections.bluesky],
    });
    expect(answer).toMatchObject({ status: 200, body: { allPublished: true } });
    const { records } = await sandboxGet<Records>(w.sandbox.url, "/_sandbox/bluesky/records");
    const videoPostId = answer.body.platforms[0]?.platformPostId ?? "";
    const record = records.find((candidate) => videoPostId.endsWith(candidate.rkey));
    expect(record?.value.embed).toMatchObject({
      $type: "app.bsky.embed.video",
      video: { mimeType: "video/mp4" },
      aspectRatio: { width: 720, height: 1280 },
    });
  });

  test("a PNG TikTok carousel is published, TikTok pulling JPEG copies from our URLs", async ({ db }) => {
    const w = await worldFor(db);
    const paths = [
      await uploadTo(w, "one.png", await pngImage(2400, 3200, 3), "image/png"),
      await uploadTo(w, "two.png", await pngImage(800, 600, 4), "image/png"),
    ];
    const answer = await postTo(w, "/api/v1/publish", {
      caption: "carousel",
      mediaUrls: paths.map((path) => w.storage.publicUrl(path)),
      connectionIds: [w.demo.connections.tiktok],
    });
    expect(answer).toMatchObject({ status: 200, body: { allPublished: true } });
    const { posts } = await sandboxGet<{ posts: TikTokPost[] }>(w.sandbox.url, "/_sandbox/tiktok/posts");
    const publishId = answer.body.platforms[0]?.platformPostId;
    const post = posts.find(
      (candidate) => candidate.publishId === publishId || candidate.publicPostId === publishId,
    );
    expect(post).toMatchObject({ mediaType: "PHOTO", status: "PUBLISH_COMPLETE" });
    const copies = await Promise.all(paths.map((path) => fittedCopyOf(w, path, "tiktok-v1")));
    const sent = await Promise.all(copies.map((copy) => storedBytes(w, copy as string)));
    expect(post?.media.map((item) => item.sha256)).toEqual(sent.map(sha256));
    for (const bytes of sent) expect((await sharp(bytes).metadata()).format).toBe("jpeg");
    // 2400 × 3200 fits 1080 × 1920 (portrait 1080p) as 1080 × 1440.
    expect(await sharp(sent[0]).metadata()).toMatchObject({ width: 1080, height: 1440 });
  });

  test("a video too long for the TikTok creator is a 400 before anything is stored as a post", async ({
    db,
  }) => {
    const w = await worldFor(db);
    const creator = await connectPrivateCreator(db, w);
    const path = await uploadTo(w, "long.mp4", buildMp4({ durationSec: 75.2 }), "video/mp4");
    const before = await postCount(db);
    const answer = await postTo(w, "/api/v1/publish", {
      videoUrl: w.storage.publicUrl(path),
      connectionIds: [creator],
      tiktokPrivacy: "SELF_ONLY",
    });
    expect(answer).toMatchObject({
      status: 400,
      body: {
        error: "CONTENT_NOT_ACCEPTED",
        connectionId: creator,
        platform: "tiktok",
        limit: { maxDurationSec: 60 },
        value: { durationSec: 75.2 },
      },
    });
    expect(await postCount(db)).toBe(before);
  });

  test("a TikTok connection whose grant is revoked is refused on the same request and marked", async ({
    db,
  }) => {
    const w = await worldFor(db);
    const creator = await connectPrivateCreator(db, w);
    const path = await uploadTo(w, "short.mp4", buildMp4({ durationSec: 10 }), "video/mp4");
    await sandboxPost(w.sandbox.url, "/_sandbox/tokens/revoke", {
      platform: "tiktok",
      account: DEMO_TIKTOK.creators.private.openId,
    });
    await sandboxPost(w.sandbox.url, "/_sandbox/tokens/expire", {
      platform: "tiktok",
      account: DEMO_TIKTOK.creators.private.openId,
    });
    const before = await postCount(db);
    const answer = await postTo(w, "/api/v1/publish", {
      videoUrl: w.storage.publicUrl(path),
      connectionIds: [creator],
      tiktokPrivacy: "SELF_ONLY",
    });
    expect(answer).toMatchObject({
      status: 400,
      body: { error: "INVALID_CONNECTION", connectionId: creator, reason: "needs_reconnect" },
    });
    expect(await postCount(db)).toBe(before);
    const [row] = await db.query<{ status: string; statusReason: string }>(
      `SELECT status, status_reason AS "statusReason" FROM publisher.connections WHERE id = $1`,
      [creator],
    );
    expect(row).toMatchObject({
      status: "needs_reconnect",
      statusReason: expect.stringContaining("invalid_grant"),
    });
  });
});

import { createHash } from "node:crypto";
import { DEMO_BLUESKY } from "@app/sandbox/demo";
import { test } from "@app/testkit";
import { AppBskyFeedPost, AtpAgent } from "@atproto/api";
import sharp from "sharp";
import { describe, expect } from "vitest";
import type { PublisherDemo } from "../../src/demo.ts";
import { derivedPath } from "../../src/media/fit/derived-path.ts";
import { BLUESKY_IMAGE, TIKTOK_IMAGE } from "../../src/media/fit/image-profiles.ts";
import { collect } from "../../src/media/probe/byte-source.ts";
import type { PublishingService } from "../../src/publishing/index.ts";
import { jpegImage, pngImage } from "../media/images.ts";
import {
  content,
  insertPost,
  mediaFile,
  postStatus,
  sandboxGet,
  seedDemo,
  targetsOf,
  usePlatformTwins,
} from "../publishing-support.ts";

const twins = usePlatformTwins((settings, storage) => {
  settings.tiktok.verifiedUrlPrefixes = [`${storage.url}/media/`];
});

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** The copy of the image stored at `path` made to fit a platform profile, as publishing stored it. */
async function fittedCopy(path: string, original: Buffer, profileId: string): Promise<Buffer> {
  const copy = derivedPath(path, profileId, sha256(original), "jpg");
  return collect((await twins.storage.read(copy)).stream, 20_000_000);
}

type Video = {
  id: string;
  title: string;
  description: string;
  privacyStatus: string;
  bytes: number;
  sha256: string;
};
type TikTokPost = {
  publishId: string;
  mode: string;
  mediaType: string;
  status: string;
  postInfo: Record<string, unknown> | null;
  media: { bytes?: number; sha256: string | null }[];
};
type Records = { records: { rkey: string; value: Record<string, unknown> }[]; blobs: { sha256: string }[] };

describe("publishing to each platform through its real API", () => {
  let demo: PublisherDemo;
  let publishing: PublishingService;
  const setup = async (db: Parameters<typeof seedDemo>[0]) => {
    demo ??= await seedDemo(db, twins.sandbox.url);
    publishing ??= twins.publishing(db);
    return { demo, publishing };
  };

  test("a YouTube video is uploaded in 256 KiB chunks through one resumable session and published", async ({
    db,
  }) => {
    const { demo, publishing } = await setup(db);
    const video = mediaFile("mp4", 256 * 1024 * 2 + 1000, 3);
    const url = twins.storage.put("yt-video.mp4", video.bytes, "video/mp4");
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections.youtube, platform: "youtube" }],
      content: content({
        caption: "Line one\nmore text",
        mediaItems: [{ url, mediaType: "VIDEO" }],
        youtube: { privacy: "unlisted", description: "A <b>test</b>" },
      }),
    });
    const [outcome] = await publishing.publishNow(postId, 20_000);
    expect(outcome?.status).toBe("published");
    const { videos } = await sandboxGet<{ videos: Video[] }>(twins.sandbox.url, "/_sandbox/youtube/videos");
    const made = videos.find((candidate) => candidate.id === outcome?.platformPostId);
    expect(made).toMatchObject({ title: "Line one", description: "A btest/b", privacyStatus: "unlisted" });
    expect(made?.sha256).toBe(video.sha256);
    expect(await postStatus(db, postId)).toBe("published");
  });

  test("a TikTok direct video goes up in two chunks with exact arithmetic and completes", async ({ db }) => {
    const { demo, publishing } = await setup(db);
    const video = mediaFile("mp4", 12 * 1024 * 1024 + 7, 5);
    const url = twins.storage.put("tt-direct.mp4", video.bytes, "video/mp4");
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections.tiktok, platform: "tiktok" }],
      content: content({
        caption: "direct",
        mediaItems: [{ url, mediaType: "VIDEO" }],
        tiktok: { commercialType: 1 },
      }),
    });
    const [outcome] = await publishing.publishNow(postId, 20_000);
    expect(outcome).toMatchObject({ status: "published" });
    const { posts } = await sandboxGet<{ posts: TikTokPost[] }>(twins.sandbox.url, "/_sandbox/tiktok/posts");
    const post = posts.find(
      (candidate) => candidate.mode === "DIRECT_POST" && candidate.mediaType === "VIDEO",
    );
    expect(post?.status).toBe("PUBLISH_COMPLETE");
    expect(post?.postInfo).toMatchObject({
      title: "direct",
      privacyLevel: "PUBLIC_TO_EVERYONE",
      brandOrganicToggle: true,
    });
    expect(post?.media[0]?.sha256).toBe(video.sha256);
  });

  test("a TikTok inbox video (MEDIA_UPLOAD) lands in the creator's inbox", async ({ db }) => {
    const { demo, publishing } = await setup(db);
    const video = mediaFile("mp4", 300_000, 7);
    const url = twins.storage.put("tt-inbox.mp4", video.bytes, "video/mp4");
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections.tiktok, platform: "tiktok" }],
      content: content({ mediaItems: [{ url, mediaType: "VIDEO" }], tiktok: { postMode: "MEDIA_UPLOAD" } }),
    });
    const [outcome] = await publishing.publishNow(postId, 20_000);
    expect(outcome?.status).toBe("published");
    const { posts } = await sandboxGet<{ posts: TikTokPost[] }>(twins.sandbox.url, "/_sandbox/tiktok/posts");
    const post = posts.find((candidate) => candidate.publishId === outcome?.platformPostId);
    expect(post).toMatchObject({ mode: "MEDIA_UPLOAD", status: "SEND_TO_USER_INBOX" });
    expect(post?.media[0]?.sha256).toBe(video.sha256);
  });

  test("a TikTok photo carousel is pulled by TikTok from our media URLs, each photo made to fit", async ({
    db,
  }) => {
    const { demo, publishing } = await setup(db);
    const photos = [await jpegImage(1200, 900), await pngImage(2400, 3000)];
    const urls = photos.map((photo, index) =>
      twins.storage.put(`tt-photo-${index}.jpg`, photo, "image/jpeg"),
    );
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections.tiktok, platform: "tiktok" }],
      content: content({
        caption: "carousel",
        mediaItems: urls.map((url) => ({ url, mediaType: "IMAGE" as const })),
      }),
    });
    const [outcome] = await publishing.publishNow(postId, 20_000);
    expect(outcome?.status).toBe("published");
    const { posts } = await sandboxGet<{ posts: TikTokPost[] }>(twins.sandbox.url, "/_sandbox/tiktok/posts");
    const post = posts.find((candidate) => candidate.mediaType === "PHOTO");
    expect(post?.status).toBe("PUBLISH_COMPLETE");
    // TikTok pulled the copies made to fit it (JPEG, at most 1080p) from our URLs, not the originals.
    const fitted = await Promise.all(
      photos.map((photo, index) => fittedCopy(`tt-photo-${index}.jpg`, photo, TIKTOK_IMAGE.id)),
    );
    expect(post?.media.map((item) => item.sha256)).toEqual(fitted.map(sha256));
    // 2400 × 3000 fits 1080 × 1920 (portrait 1080p) as 1080 × 1350.
    expect(await Promise.all(fitted.map(async (copy) => (await sharp(copy).metadata()).width))).toEqual([
      1200, 1080,
    ]);
  });

  test("a Bluesky text post is created at the record key saved beforehand", async ({ db }) => {
    const { demo, publishing } = await setup(db);
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections.bluesky, platform: "bluesky" }],
      content: content({ caption: "Just text on Bluesky" }),
    });
    const [outcome] = await publishing.publishNow(postId, 20_000);
    expect(outcome?.status).toBe("published");
    const [target] = await targetsOf(db, postId);
    const rkey = String(target?.platformHandle?.rkey);
    expect(outcome?.platformPostId).toContain(`/app.bsky.feed.post/${rkey}`);
    const { records } = await sandboxGet<Records>(twins.sandbox.url, "/_sandbox/bluesky/records");
    expect(records.find((record) => record.rkey === rkey)?.value).toMatchObject({
      text: "Just text on Bluesky",
    });
  });

  test("a Bluesky post carries a facet for each link, mention and hashtag, and a card for its link", async ({
    db,
  }) => {
    const { demo } = await setup(db);
    const thumbnail = mediaFile("jpeg", 3000, 7);
    const previewed: string[] = [];
    const withCards = twins.publishing(db, {
      linkPreviewer: {
        async preview(url) {
          previewed.push(url);
          return { title: "Example A", description: "About a", thumbnail: thumbnail.bytes };
        },
      },
    });
    const caption = `Día 🎉 https://example.com/a?b=c and @${DEMO_BLUESKY.handle} #twin`;
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections.bluesky, platform: "bluesky" }],
      content: content({ caption: `${caption}\n\n#Check`, hashtags: "#Check" }),
    });
    const [outcome] = await withCards.publishNow(postId, 20_000);
    expect(outcome?.status).toBe("published");
    // Read back as Bluesky's clients read it: the official client's getRecord, the official validator.
    const [, , repo, collection, rkey] = String(outcome?.platformPostId).split("/");
    const read = await new AtpAgent({ service: twins.sandbox.url }).com.atproto.repo.getRecord({
      repo: String(repo),
      collection: String(collection),
      rkey: String(rkey),
    });
    const record = read.data.value as Record<string, unknown>;
    const validation = AppBskyFeedPost.validateRecord(record);
    expect(validation.success, JSON.stringify({ record, validation })).toBe(true);
    const text = String(record?.text);
    const facets = record?.facets as { index: { byteStart: number; byteEnd: number }; features: object[] }[];
    const spans = facets.map(({ index, features }) => ({
      span: Buffer.from(text).subarray(index.byteStart, index.byteEnd).toString(),
      feature: features[0],
    }));
    expect(spans).toEqual([
      {
        span: "https://example.com/a?b=c",
        feature: expect.objectContaining({ uri: "https://example.com/a?b=c" }),
      },
      { span: `@${DEMO_BLUESKY.handle}`, feature: expect.objectContaining({ did: DEMO_BLUESKY.did }) },
      { span: "#twin", feature: expect.objectContaining({ tag: "twin" }) },
      { span: "#Check", feature: expect.objectContaining({ tag: "Check" }) },
    ]);
    expect(previewed).toEqual(["https://example.com/a?b=c"]);
    expect(record.embed).toMatchObject({
      $type: "app.bsky.embed.external",
      external: { uri: "https://example.com/a?b=c", title: "Example A", description: "About a" },
    });
    const embed = record.embed as { external: { thumb: { mimeType: string; size: number } } };
    const thumb = embed.external.thumb;
    expect(thumb).toMatchObject({ mimeType: "image/jpeg", size: thumbnail.bytes.length });
  });

  test("a Bluesky post with images uploads each, made to fit, as a blob and embeds them with their aspect ratios", async ({
    db,
  }) => {
    const { demo, publishing } = await setup(db);
    const images = [await jpegImage(3000, 2000), await pngImage(500, 400)];
    const urls = images.map((image, index) =>
      twins.storage.put(`bs-image-${index}`, image, "application/octet-stream"),
    );
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections.bluesky, platform: "bluesky" }],
      content: content({
        caption: "two images",
        mediaItems: urls.map((url) => ({ url, mediaType: "IMAGE" as const })),
      }),
    });
    const [outcome] = await publishing.publishNow(postId, 20_000);
    expect(outcome?.status).toBe("published");
    const { records, blobs } = await sandboxGet<Records>(twins.sandbox.url, "/_sandbox/bluesky/records");
    const record = records.find((candidate) => outcome?.platformPostId?.endsWith(candidate.rkey));
    const embed = record?.value.embed as {
      $type: string;
      images: { image: { mimeType: string }; aspectRatio: { width: number; height: number } }[];
    };
    expect(embed.$type).toBe("app.bsky.embed.images");
    expect(embed.images.map((image) => image.image.mimeType)).toEqual(["image/jpeg", "image/jpeg"]);
    expect(embed.images.map((image) => image.aspectRatio)).toEqual([
      { width: 2000, height: 1333 },
      { width: 500, height: 400 },
    ]);
    const fitted = await Promise.all(
      images.map((image, index) => fittedCopy(`bs-image-${index}`, image, BLUESKY_IMAGE.id)),
    );
    expect(blobs.map((blob) => blob.sha256)).toEqual(expect.arrayContaining(fitted.map(sha256)));
  });

  test("a Bluesky post with a video embeds it as an mp4 blob", async ({ db }) => {
    const { demo, publishing } = await setup(db);
    const video = mediaFile("mp4", 200_000, 9);
    const url = twins.storage.put("bs-video.mp4", video.bytes, "video/mp4");
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections.bluesky, platform: "bluesky" }],
      content: content({ caption: "a video", mediaItems: [{ url, mediaType: "VIDEO" }] }),
    });
    const [outcome] = await publishing.publishNow(postId, 20_000);
    expect(outcome?.status).toBe("published");
    const { records } = await sandboxGet<Records>(twins.sandbox.url, "/_sandbox/bluesky/records");
    const record = records.find((candidate) => outcome?.platformPostId?.endsWith(candidate.rkey));
    expect(record?.value.embed).toMatchObject({
      $type: "app.bsky.embed.video",
      video: { mimeType: "video/mp4" },
    });
  });
});

import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import type { PublisherDemo } from "../../src/demo.ts";
import type { PublishingService } from "../../src/publishing/index.ts";
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

  test("a TikTok photo carousel is pulled by TikTok from our media URLs", async ({ db }) => {
    const { demo, publishing } = await setup(db);
    const photos = [mediaFile("jpeg", 2000, 1), mediaFile("jpeg", 3000, 2)];
    const urls = photos.map((photo, index) =>
      twins.storage.put(`tt-photo-${index}.jpg`, photo.bytes, "image/jpeg"),
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
    expect(post?.media.map((item) => item.sha256)).toEqual(photos.map((photo) => photo.sha256));
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

  test("a Bluesky post with images uploads each as a blob and embeds them", async ({ db }) => {
    const { demo, publishing } = await setup(db);
    const images = [mediaFile("jpeg", 4000, 3), mediaFile("png", 5000, 4)];
    const urls = images.map((image, index) =>
      twins.storage.put(`bs-image-${index}`, image.bytes, "application/octet-stream"),
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
    const embed = record?.value.embed as { $type: string; images: { image: { mimeType: string } }[] };
    expect(embed.$type).toBe("app.bsky.embed.images");
    expect(embed.images.map((image) => image.image.mimeType)).toEqual(["image/jpeg", "image/png"]);
    expect(blobs.map((blob) => blob.sha256)).toEqual(
      expect.arrayContaining(images.map((image) => image.sha256)),
    );
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

/**
 * Audit (7cd4482): a YouTube chunk is now streamed from storage with an explicit content-length,
 * where it used to be read whole into a Buffer whose own length made the Content-Range.
 *
 * Defect: nothing checked that the storage's range read held exactly bytes first…last. An
 * S3-compatible store that ignores `Range` answers 200 with the whole object, and `S3Storage.read`
 * handed it on as the range: the object's first bytes went into the upload session at the chunk's
 * offset, the publisher resumed from where the session stood, and the last chunk completed a
 * video of other bytes, marked published. TikTok's chunks (streamed this way before) did the same.
 * Now a range read must come back as that range (206 with its Content-Range) or it is refused, and
 * the attempt fails with MEDIA_UNAVAILABLE (transient: retried with backoff), having sent nothing.
 */
import { Readable } from "node:stream";
import { test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { PublishingService } from "../../src/publishing/index.ts";
import { type FakeS3, startFakeS3 } from "../fake-s3.ts";
import {
  content,
  insertPost,
  mediaFile,
  sandboxGet,
  seedDemo,
  targetsOf,
  usePlatformTwins,
  waitFor,
} from "../publishing-support.ts";

const twins = usePlatformTwins((settings) => {
  settings.tiktok.verifiedUrlPrefixes = ["http://127.0.0.1:"];
});
let s3: FakeS3;
beforeAll(async () => {
  s3 = await startFakeS3({ honourRange: true, publicRead: true });
});
afterAll(() => s3.close());

type Video = { id: string; sha256: string };
type TikTokPost = { publishId: string; status: string; media: { sha256: string | null }[] };

/** A video stored in the fake S3 through `S3Storage`, and a post of it to one platform. */
async function postOnS3(
  db: Parameters<typeof seedDemo>[0],
  platform: "youtube" | "tiktok",
  name: string,
  size: number,
) {
  const demo = await seedDemo(db, twins.sandbox.url);
  const video = mediaFile("mp4", size, 11);
  const storage = s3.storage();
  await storage.write(name, Readable.from([video.bytes]), { contentType: "video/mp4", expectedBytes: size });
  const postId = await insertPost(db, {
    accountId: demo.accountId,
    connections: [{ id: demo.connections[platform], platform }],
    content: content({
      caption: "on s3",
      mediaItems: [{ url: storage.publicUrl(name), mediaType: "VIDEO" }],
    }),
  });
  return { postId, video, publishing: twins.publishing(db, { storage }) };
}

/** Starts the post's first attempt and waits until it has settled (a failure waits for its retry). */
async function firstAttempt(
  db: Parameters<typeof seedDemo>[0],
  postId: string,
  publishing: PublishingService,
) {
  await publishing.publishNow(postId, 500);
  return waitFor(async () => {
    const [target] = await targetsOf(db, postId);
    return target && target.attempts >= 1 ? target : undefined;
  }, "the first attempt settled");
}

describe("chunks read by range from an S3-compatible store", () => {
  test("a store that answers ranges: the YouTube video holds the post's bytes", async ({ db }) => {
    s3.honourRange = true;
    const { postId, video, publishing } = await postOnS3(db, "youtube", "med_s3_ranged.mp4", 4 * 256 * 1024);
    const [outcome] = await publishing.publishNow(postId, 20_000);
    const { videos } = await sandboxGet<{ videos: Video[] }>(twins.sandbox.url, "/_sandbox/youtube/videos");
    expect(outcome?.status).toBe("published");
    expect(videos.find((made) => made.id === outcome?.platformPostId)?.sha256).toBe(video.sha256);
  });

  test("a store that ignores Range: no YouTube video is made, and the target's failed attempt says why", async ({
    db,
  }) => {
    s3.honourRange = false;
    const before = (await sandboxGet<{ videos: Video[] }>(twins.sandbox.url, "/_sandbox/youtube/videos"))
      .videos;
    const { postId, publishing } = await postOnS3(db, "youtube", "med_s3_unranged.mp4", 4 * 256 * 1024);
    const target = await firstAttempt(db, postId, publishing);
    const after = (await sandboxGet<{ videos: Video[] }>(twins.sandbox.url, "/_sandbox/youtube/videos"))
      .videos;
    // A transient failure: the target waits for its next attempt, having sent no byte.
    expect({ status: target.status, attempts: target.attempts }).toEqual({
      status: "publishing",
      attempts: 1,
    });
    expect(target.error).toMatch(
      /^MEDIA_UNAVAILABLE: The media storage answered a range read with other bytes/,
    );
    expect(after).toHaveLength(before.length);
  });

  test("a store that ignores Range: no TikTok video is completed from other bytes", async ({ db }) => {
    s3.honourRange = false;
    const completed = async () =>
      (await sandboxGet<{ posts: TikTokPost[] }>(twins.sandbox.url, "/_sandbox/tiktok/posts")).posts.filter(
        (post) => post.status === "PUBLISH_COMPLETE",
      ).length;
    const before = await completed();
    const { postId, publishing } = await postOnS3(db, "tiktok", "med_s3_unranged_tt.mp4", 12 * 1024 * 1024);
    const target = await firstAttempt(db, postId, publishing);
    // A transient failure: the target waits for its next attempt, having sent no byte.
    expect({ status: target.status, attempts: target.attempts }).toEqual({
      status: "publishing",
      attempts: 1,
    });
    expect(target.error).toMatch(
      /^MEDIA_UNAVAILABLE: The media storage answered a range read with other bytes/,
    );
    expect(await completed()).toBe(before);
  });
});

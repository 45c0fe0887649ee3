import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import {
  content,
  insertPost,
  requestsOf,
  sandboxPost,
  seedDemo,
  usePlatformTwins,
} from "../publishing-support.ts";
import { jpegImage } from "./images.ts";
import { buildMp4 } from "./mp4-fixture.ts";

const twins = usePlatformTwins((settings, storage) => {
  settings.tiktok.verifiedUrlPrefixes = [`${storage.url}/media/`];
});

/**
 * Posts whose media the API did not check (another host's media, with no importer; posts made
 * before the preflight) are checked by the workers before any platform call.
 */
describe("media checked against its declared type before a platform sees it", () => {
  test("an MP4 declared IMAGE never becomes a TikTok photo post", async ({ db }) => {
    const demo = await seedDemo(db, twins.sandbox.url);
    const publishing = twins.publishing(db);
    const url = twins.storage.put("worker-clip.jpg", buildMp4({ durationSec: 4 }), "image/jpeg");
    await sandboxPost(twins.sandbox.url, "/_sandbox/requests", {}, "DELETE");
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections.tiktok, platform: "tiktok" }],
      content: content({ mediaItems: [{ url, mediaType: "IMAGE" }] }),
    });
    const [outcome] = await publishing.publishNow(postId, 10_000);
    expect(outcome).toMatchObject({
      status: "failed",
      error: expect.stringMatching(/^MEDIA_NOT_ACCEPTED: .*declared IMAGE/),
    });
    expect(await requestsOf(twins.sandbox.url, "tiktok.content.init")).toEqual([]);
  });

  test("a JPEG declared VIDEO is never sent to YouTube", async ({ db }) => {
    const demo = await seedDemo(db, twins.sandbox.url);
    const publishing = twins.publishing(db);
    const url = twins.storage.put("worker-photo.mp4", await jpegImage(320, 240), "video/mp4");
    await sandboxPost(twins.sandbox.url, "/_sandbox/requests", {}, "DELETE");
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections.youtube, platform: "youtube" }],
      content: content({ mediaItems: [{ url, mediaType: "VIDEO" }] }),
    });
    const [outcome] = await publishing.publishNow(postId, 10_000);
    expect(outcome).toMatchObject({
      status: "failed",
      error: expect.stringMatching(/^MEDIA_NOT_ACCEPTED: .*declared VIDEO/),
    });
    expect(await requestsOf(twins.sandbox.url, "youtube.videos.upload")).toEqual([]);
  });
});

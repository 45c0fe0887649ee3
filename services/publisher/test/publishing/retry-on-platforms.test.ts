import type { ServiceApp } from "@app/core";
import type { Database } from "@app/db";
import { DEMO_BLUESKY } from "@app/sandbox/demo";
import { json, silentLogger, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { createApp } from "../../src/app.ts";
import type { PostContent } from "../../src/contracts/post.ts";
import type { PublisherDemo } from "../../src/demo.ts";
import type { PublishingService } from "../../src/publishing/index.ts";
import { createApiKey } from "../../src/store/accounts.ts";
import { jpegImage } from "../media/images.ts";
import {
  content,
  insertPost,
  mediaFile,
  postStatus,
  requestsOf,
  sandboxGet,
  sandboxPost,
  seedDemo,
  targetsOf,
  usePlatformTwins,
  waitFor,
} from "../publishing-support.ts";

// POST /api/v1/posts/{id}/retry against the platform twins: a target that failed with nothing on
// the platform publishes when retried; one the platform may hold is refused until forced, and a
// forced retry publishes it once.

const twins = usePlatformTwins((settings, storage) => {
  settings.tiktok.verifiedUrlPrefixes = [`${storage.url}/media/`];
});

type Video = { id: string; title: string };
type TikTokPost = { publishId: string; mediaType: string; status: string };
type Records = { records: { rkey: string; collection: string }[] };

describe("retrying failed targets on the platforms", () => {
  let demo: PublisherDemo;
  let key: string;
  let app: ServiceApp;
  let publishing: PublishingService;
  const setup = async (db: Database) => {
    demo ??= await seedDemo(db, twins.sandbox.url);
    key ??= (await createApiKey(db, { accountId: demo.accountId })).key;
    publishing ??= twins.publishing(db);
    app ??= createApp({ db, logger: silentLogger(), storage: twins.storage, publishing });
    return demo;
  };
  const post = (db: Database, platform: keyof PublisherDemo["connections"], body: PostContent) =>
    insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections[platform], platform }],
      content: body,
    });
  const retry = (postId: string, body?: unknown) =>
    app.request(`/api/v1/posts/${postId}/retry`, {
      method: "POST",
      headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  /** Runs the workers until the post has settled (published or failed); its status. */
  const settle = async (db: Database, postId: string, workerId: string) => {
    const workers = publishing.startWorkers({ workerId, pollIntervalMs: 50, sweepIntervalMs: false });
    try {
      return await waitFor(async () => {
        const status = await postStatus(db, postId);
        return status === "published" || status === "failed" ? status : undefined;
      }, `post ${postId} to settle`);
    } finally {
      await workers.stop();
    }
  };

  test("a YouTube upload refused before any session (quotaExceeded) is retried and publishes one video", async ({
    db,
  }) => {
    await setup(db);
    await sandboxPost(twins.sandbox.url, "/_sandbox/faults", {
      operation: "youtube.videos.insert",
      kind: "error",
      status: 403,
      error: "quotaExceeded",
    });
    const url = twins.storage.put("retry-quota.mp4", mediaFile("mp4", 300_000, 7).bytes, "video/mp4");
    const postId = await post(
      db,
      "youtube",
      content({ caption: "Quota day", mediaItems: [{ url, mediaType: "VIDEO" }] }),
    );
    const [failed] = await publishing.publishNow(postId, 20_000);
    expect(failed).toMatchObject({ status: "failed", error: expect.stringContaining("quotaExceeded") });
    expect((await targetsOf(db, postId))[0]?.platformHandle).toBeNull();

    const res = await retry(postId);
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ status: "scheduled", retried: [{ evidence: "nothing_sent" }] });
    expect(await settle(db, postId, "retry-youtube")).toBe("published");
    const [target] = await targetsOf(db, postId);
    const { videos } = await sandboxGet<{ videos: Video[] }>(twins.sandbox.url, "/_sandbox/youtube/videos");
    expect(videos.filter((video) => video.title === "Quota day").map((video) => video.id)).toEqual([
      target?.platformPostId,
    ]);
  });

  test("a Bluesky post refused at createRecord keeps its record key: retried without force, it lands at that key once", async ({
    db,
  }) => {
    await setup(db);
    await sandboxPost(twins.sandbox.url, "/_sandbox/faults", {
      operation: "com.atproto.repo.createRecord",
      kind: "error",
      status: 400,
      error: "InvalidRequest",
      message: "Refused this once",
    });
    const postId = await post(db, "bluesky", content({ caption: "Second time lucky" }));
    const [failed] = await publishing.publishNow(postId, 20_000);
    expect(failed?.status).toBe("failed");
    const rkey = (await targetsOf(db, postId))[0]?.platformHandle?.rkey as string;
    expect(rkey).toMatch(/^[a-z2-7]{13}$/);

    const res = await retry(postId);
    expect(await json(res)).toMatchObject({ retried: [{ evidence: "same_copy", handleDropped: false }] });
    expect(await settle(db, postId, "retry-bluesky")).toBe("published");
    const { records } = await sandboxGet<Records>(twins.sandbox.url, "/_sandbox/bluesky/records");
    expect(records.filter((record) => record.rkey === rkey)).toHaveLength(1);
    expect((await targetsOf(db, postId))[0]?.platformPostId).toBe(
      `at://${DEMO_BLUESKY.did}/app.bsky.feed.post/${rkey}`,
    );
  });

  test("a TikTok carousel whose init answer was lost is refused as PUBLISH_OUTCOME_UNKNOWN, then forced and published once", async ({
    db,
  }) => {
    await setup(db);
    const photos = [await jpegImage(640, 480), await jpegImage(800, 600)];
    const urls = photos.map((photo, index) =>
      twins.storage.put(`retry-photo-${index}.jpg`, photo, "image/jpeg"),
    );
    await sandboxPost(twins.sandbox.url, "/_sandbox/requests", {}, "DELETE");
    // The connection is reset before TikTok's handler runs: nothing was made, but the publisher
    // cannot tell, and fails the target rather than risk a second carousel.
    await sandboxPost(twins.sandbox.url, "/_sandbox/faults", {
      operation: "tiktok.content.init",
      kind: "reset",
    });
    const postId = await post(
      db,
      "tiktok",
      content({
        caption: "lost answer",
        mediaItems: urls.map((url) => ({ url, mediaType: "IMAGE" as const })),
      }),
    );
    expect(await settle(db, postId, "retry-tiktok-1")).toBe("failed");
    const [failed] = await targetsOf(db, postId);
    expect(failed?.error).toContain("PUBLISH_OUTCOME_UNKNOWN");
    expect(failed?.platformHandle).toEqual({ phase: "initiating", kind: "photo" });

    const refused = await retry(postId);
    expect(refused.status).toBe(409);
    expect(await json(refused)).toMatchObject({
      error: "PUBLISH_OUTCOME_UNKNOWN",
      targets: [{ connectionId: demo.connections.tiktok, platform: "tiktok" }],
    });
    expect((await targetsOf(db, postId))[0]?.status).toBe("failed");

    const forced = await retry(postId, { force: true, reason: "No carousel on the profile after an hour." });
    expect(forced.status).toBe(200);
    expect(await settle(db, postId, "retry-tiktok-2")).toBe("published");
    const { posts } = await sandboxGet<{ posts: TikTokPost[] }>(twins.sandbox.url, "/_sandbox/tiktok/posts");
    expect(posts.filter((tiktok) => tiktok.mediaType === "PHOTO")).toHaveLength(1);
    expect((await requestsOf(twins.sandbox.url, "tiktok.content.init")).map((call) => call.status)).toEqual([
      null,
      200,
    ]);
    const history = await app.request(`/api/v1/posts/${postId}/events`, { headers: { "x-api-key": key } });
    expect(history.status).toBe(200);
    const steps = (
      (await json(history)).history as { step?: string; detail?: Record<string, unknown> }[]
    ).filter((entry) => entry.step === "retry_requested");
    expect(steps).toEqual([
      expect.objectContaining({
        detail: expect.objectContaining({
          evidence: "unknown",
          forced: true,
          reason: "No carousel on the profile after an hour.",
          previousError: expect.stringContaining("PUBLISH_OUTCOME_UNKNOWN"),
        }),
      }),
    ]);
  });
});

import { systemClock } from "@app/core";
import { DEMO_TIKTOK } from "@app/sandbox/demo";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { completeConnect, startConnect } from "../../src/connections/connect-flows.ts";
import type { PublisherDemo } from "../../src/demo.ts";
import { approveOnSandbox, sandboxAdapters, sandboxIdentity } from "../../src/demo.ts";
import {
  content,
  insertPost,
  mediaFile,
  postStatus,
  requestsOf,
  sandboxBluesky,
  sandboxGet,
  sandboxPost,
  seedDemo,
  targetsOf,
  testSealer,
  usePlatformTwins,
  waitFor,
} from "../publishing-support.ts";

const twins = usePlatformTwins();

describe("the target state machine", () => {
  let demo: PublisherDemo;
  const seeded = async (db: Parameters<typeof seedDemo>[0]) => {
    demo ??= await seedDemo(db, twins.sandbox.url);
    return demo;
  };

  test("one target failing while another publishes leaves the post partial, each with its own outcome", async ({
    db,
  }) => {
    const demo = await seeded(db);
    const publishing = twins.publishing(db);
    const url = twins.storage.put("partial.mp4", mediaFile("mp4", 1000).bytes, "video/mp4");
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [
        { id: demo.connections.tiktok, platform: "tiktok" },
        { id: demo.connections.bluesky, platform: "bluesky" },
      ],
      content: content({ mediaItems: [{ url, mediaType: "VIDEO" }], tiktok: { privacy: "NOT_A_LEVEL" } }),
    });
    const outcomes = await publishing.publishNow(postId, 20_000);
    const byPlatform = Object.fromEntries(outcomes.map((outcome) => [outcome.platform, outcome]));
    expect(byPlatform.bluesky?.status).toBe("published");
    expect(byPlatform.tiktok).toMatchObject({
      status: "failed",
      error: expect.stringContaining("privacy_level_option_mismatch"),
    });
    expect(await postStatus(db, postId)).toBe("partial");
  });

  test("a 429 with Retry-After is retried no sooner than the platform asked, then publishes once", async ({
    db,
  }) => {
    const demo = await seeded(db);
    const publishing = twins.publishing(db);
    await sandboxPost(twins.sandbox.url, "/_sandbox/requests", {}, "DELETE");
    await sandboxPost(twins.sandbox.url, "/_sandbox/faults", {
      operation: "com.atproto.repo.createRecord",
      kind: "error",
      status: 429,
      error: "RateLimitExceeded",
      retryAfterSeconds: 1,
    });
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections.bluesky, platform: "bluesky" }],
      content: content({ caption: "retried" }),
    });
    const workers = publishing.startWorkers({
      workerId: "retry-worker",
      pollIntervalMs: 50,
      sweepIntervalMs: false,
    });
    try {
      await waitFor(
        async () => (await postStatus(db, postId)) === "published",
        "the retried post to publish",
      );
    } finally {
      await workers.stop();
    }
    const calls = await requestsOf(twins.sandbox.url, "com.atproto.repo.createRecord");
    expect(calls.map((call) => call.status)).toEqual([429, 200]);
    const gap = Date.parse(calls[1]?.at ?? "") - Date.parse(calls[0]?.at ?? "");
    expect(gap).toBeGreaterThanOrEqual(1000);
    const [target] = await targetsOf(db, postId);
    expect(target).toMatchObject({ status: "published", attempts: 1 });
  });

  test("a permanent refusal fails the target with the platform's reason and is not retried", async ({
    db,
  }) => {
    const demo = await seeded(db);
    const publishing = twins.publishing(db);
    await sandboxPost(twins.sandbox.url, "/_sandbox/faults", {
      operation: "youtube.videos.insert",
      kind: "error",
      status: 403,
      error: "quotaExceeded",
    });
    const url = twins.storage.put("quota.mp4", mediaFile("mp4", 1000).bytes, "video/mp4");
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections.youtube, platform: "youtube" }],
      content: content({ mediaItems: [{ url, mediaType: "VIDEO" }] }),
    });
    const [outcome] = await publishing.publishNow(postId, 20_000);
    expect(outcome).toMatchObject({
      status: "failed",
      attempts: 0,
      error: expect.stringMatching(/^quotaExceeded: /),
    });
    expect(await postStatus(db, postId)).toBe("failed");
  });

  test("a YouTube upload whose chunk connection resets resumes from the session's offset and makes one video", async ({
    db,
  }) => {
    const demo = await seeded(db);
    const publishing = twins.publishing(db);
    const before = (await sandboxGet<{ videos: unknown[] }>(twins.sandbox.url, "/_sandbox/youtube/videos"))
      .videos.length;
    await sandboxPost(twins.sandbox.url, "/_sandbox/faults", {
      operation: "youtube.videos.upload",
      kind: "reset",
      count: 1,
    });
    const video = mediaFile("mp4", 256 * 1024 * 3, 11);
    const url = twins.storage.put("resume.mp4", video.bytes, "video/mp4");
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections.youtube, platform: "youtube" }],
      content: content({ mediaItems: [{ url, mediaType: "VIDEO" }] }),
    });
    const [outcome] = await publishing.publishNow(postId, 20_000);
    expect(outcome?.status).toBe("published");
    const { videos } = await sandboxGet<{ videos: { id: string; sha256: string }[] }>(
      twins.sandbox.url,
      "/_sandbox/youtube/videos",
    );
    expect(videos.length).toBe(before + 1);
    expect(videos.find((v) => v.id === outcome?.platformPostId)?.sha256).toBe(video.sha256);
  });

  test("a revoked grant marks the connection for reconnecting and fails its target with that reason", async ({
    db,
  }) => {
    const demo = await seeded(db);
    const clock = systemClock;
    const base = {
      db,
      clock,
      sealer: testSealer(),
      adapters: sandboxAdapters(twins.sandbox.url),
      publicUrl: "http://127.0.0.1:3002",
    };
    const deps = {
      ...base,
      blueskyIdentity: sandboxIdentity(twins.sandbox.url, sandboxBluesky(twins.sandbox.url), base.adapters),
    };
    const { authorizeUrl } = await startConnect(deps, { accountId: demo.accountId, platform: "tiktok" });
    const privateCreator = await completeConnect(deps, {
      platform: "tiktok",
      ...(await approveOnSandbox(authorizeUrl, DEMO_TIKTOK.creators.private.openId)),
    });
    await sandboxPost(twins.sandbox.url, "/_sandbox/tokens/revoke", {
      platform: "tiktok",
      account: DEMO_TIKTOK.creators.private.openId,
    });
    await sandboxPost(twins.sandbox.url, "/_sandbox/tokens/expire", {
      platform: "tiktok",
      account: DEMO_TIKTOK.creators.private.openId,
    });
    const publishing = twins.publishing(db);
    const url = twins.storage.put("revoked.mp4", mediaFile("mp4", 1000).bytes, "video/mp4");
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: privateCreator.id, platform: "tiktok" }],
      content: content({ mediaItems: [{ url, mediaType: "VIDEO" }], tiktok: { privacy: "SELF_ONLY" } }),
    });
    const [outcome] = await publishing.publishNow(postId, 20_000);
    expect(outcome).toMatchObject({
      status: "failed",
      error: expect.stringContaining("CONNECTION_NEEDS_RECONNECT"),
    });
    expect(outcome?.error).toContain("invalid_grant");
    const [connection] = await db.query<{ status: string }>(
      "SELECT status FROM publisher.connections WHERE id = $1",
      [privateCreator.id],
    );
    expect(connection?.status).toBe("needs_reconnect");
  });
});

describe("cancelling and restarting", () => {
  test("cancel and a claiming worker race: exactly one wins, and a canceled post is never published", async ({
    db,
  }) => {
    const demo = await seedDemo(db, twins.sandbox.url);
    const publishing = twins.publishing(db);
    const posts: string[] = [];
    for (let index = 0; index < 6; index += 1) {
      posts.push(
        await insertPost(db, {
          accountId: demo.accountId,
          connections: [{ id: demo.connections.bluesky, platform: "bluesky" }],
          content: content({ caption: `race ${index}` }),
        }),
      );
    }
    const workers = publishing.startWorkers({
      workerId: "race-worker",
      pollIntervalMs: 10,
      concurrency: 1,
      sweepIntervalMs: false,
    });
    const canceled = await Promise.all(posts.map((postId) => publishing.cancel(postId)));
    try {
      await waitFor(async () => {
        const statuses = await Promise.all(posts.map((postId) => postStatus(db, postId)));
        return statuses.every((status) => status === "draft" || status === "published");
      }, "every raced post to settle");
    } finally {
      await workers.stop();
    }
    for (const [index, postId] of posts.entries()) {
      const [target] = await targetsOf(db, postId);
      expect(target?.status).toBe(canceled[index] ? "canceled" : "published");
      expect(await postStatus(db, postId)).toBe(canceled[index] ? "draft" : "published");
    }
    const [scheduled] = await db.query<{ scheduledFor: Date | null }>(
      `SELECT scheduled_for AS "scheduledFor" FROM publisher.posts WHERE id = $1`,
      [posts[canceled.indexOf(true)] ?? posts[0]],
    );
    if (canceled.includes(true)) expect(scheduled?.scheduledFor).toBeNull();
  });

  test("cancelling a post that already started publishing is refused", async ({ db }) => {
    const demo = await seedDemo(db, twins.sandbox.url);
    const publishing = twins.publishing(db);
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections.bluesky, platform: "bluesky" }],
      content: content({ caption: "too late to cancel" }),
    });
    await publishing.publishNow(postId, 20_000);
    expect(await publishing.cancel(postId)).toBe(false);
    expect(await postStatus(db, postId)).toBe("published");
  });

  test("scheduled posts survive a restart of the workers and publish when due", async ({ db }) => {
    const demo = await seedDemo(db, twins.sandbox.url);
    const future = new Date(Date.now() + 3_600_000);
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections.bluesky, platform: "bluesky" }],
      content: content({ caption: "scheduled for later" }),
      dueAt: future,
    });
    const first = twins.publishing(db).startWorkers({
      pollIntervalMs: 20,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await first.stop();
    expect(await postStatus(db, postId)).toBe("scheduled");
    expect((await targetsOf(db, postId))[0]).toMatchObject({
      status: "scheduled",
      attempts: 0,
      claimedBy: null,
    });
    await db.query(
      "UPDATE publisher.post_targets SET next_attempt_at = now(), due_at = now() WHERE post_id = $1",
      [postId],
    );
    const second = twins.publishing(db).startWorkers({
      pollIntervalMs: 20,
    });
    try {
      await waitFor(
        async () => (await postStatus(db, postId)) === "published",
        "the scheduled post to publish",
      );
    } finally {
      await second.stop();
    }
  });
});

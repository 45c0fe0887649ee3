import { test } from "@app/testkit";
import { expect } from "vitest";
import { loadPublisherConfig } from "../../src/config.ts";
import {
  content,
  insertPost,
  mediaFile,
  postStatus,
  requestsOf,
  sandboxPost,
  seedDemo,
  TEST_SECRET,
  usePlatformTwins,
  waitForSettledTarget,
} from "../publishing-support.ts";

// A TikTok post whose status stays PROCESSING used to be polled without end (every
// `statusPollMs`, the target never settling). It now fails once `tiktokProcessingTimeoutMs` has
// passed since its media went in.

const twins = usePlatformTwins();

test("the processing deadline is PUBLISHER_TIKTOK_PROCESSING_TIMEOUT_MS, one hour by default", () => {
  const parse = (env: Record<string, string>) =>
    loadPublisherConfig({ PUBLISHER_TOKEN_SECRET: TEST_SECRET, ...env }).publishing.workers;
  expect(parse({}).tiktokProcessingTimeoutMs).toBe(3_600_000);
  expect(parse({ PUBLISHER_TIKTOK_PROCESSING_TIMEOUT_MS: "900000" }).tiktokProcessingTimeoutMs).toBe(900_000);
  expect(() => parse({ PUBLISHER_TIKTOK_PROCESSING_TIMEOUT_MS: "5" })).toThrow();
});

test("a TikTok post that stays processing fails after the deadline instead of being polled forever", async ({
  db,
}) => {
  const demo = await seedDemo(db, twins.sandbox.url);
  await sandboxPost(twins.sandbox.url, "/_sandbox/settings", { tiktokOutcome: "stuck" }, "PATCH");
  const video = mediaFile("mp4", 64 * 1024, 3);
  const url = twins.storage.put("stuck.mp4", video.bytes, "video/mp4");
  const postId = await insertPost(db, {
    accountId: demo.accountId,
    connections: [{ id: demo.connections.tiktok, platform: "tiktok" }],
    content: content({ mediaItems: [{ url, mediaType: "VIDEO" }] }),
  });
  const startedAt = Date.now();
  // The deadline as the worker setting gives it (publishing's own tuning keeps its one-hour default).
  const worker = twins.publishing(db).startWorkers({
    workerId: "deadline",
    pollIntervalMs: 20,
    sweepIntervalMs: false,
    tiktokProcessingTimeoutMs: 1_000,
  });
  try {
    const target = await waitForSettledTarget(db, postId, "the stuck TikTok target to settle");
    expect(target.status).toBe("failed");
    expect(target.error).toMatch(
      /^PROCESSING_TIMEOUT: TikTok was still processing the post \d+ seconds after/,
    );
    expect(target.attempts).toBe(0);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_000);
    expect(await postStatus(db, postId)).toBe("failed");
  } finally {
    await worker.stop();
    await sandboxPost(twins.sandbox.url, "/_sandbox/settings", { tiktokOutcome: "complete" }, "PATCH");
  }
  // Polled while processing (every 50 ms here), then no more.
  const polls = (await requestsOf(twins.sandbox.url, "tiktok.status.fetch")).length;
  expect(polls).toBeGreaterThan(2);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect((await requestsOf(twins.sandbox.url, "tiktok.status.fetch")).length).toBe(polls);
});

test("a TikTok post whose processing ends before the deadline is published", async ({ db }) => {
  const demo = await seedDemo(db, twins.sandbox.url);
  await sandboxPost(twins.sandbox.url, "/_sandbox/settings", { tiktokProcessingPolls: 3 }, "PATCH");
  const video = mediaFile("mp4", 64 * 1024, 4);
  const url = twins.storage.put("slow.mp4", video.bytes, "video/mp4");
  const postId = await insertPost(db, {
    accountId: demo.accountId,
    connections: [{ id: demo.connections.tiktok, platform: "tiktok" }],
    content: content({ mediaItems: [{ url, mediaType: "VIDEO" }] }),
  });
  const worker = twins.publishing(db).startWorkers({
    workerId: "in-time",
    pollIntervalMs: 20,
    sweepIntervalMs: false,
    tiktokProcessingTimeoutMs: 30_000,
  });
  try {
    const target = await waitForSettledTarget(db, postId, "the TikTok target to settle");
    expect(target).toMatchObject({ status: "published", error: null });
  } finally {
    await worker.stop();
    await sandboxPost(twins.sandbox.url, "/_sandbox/settings", { tiktokProcessingPolls: 1 }, "PATCH");
  }
});

import { test } from "@app/testkit";
import { expect } from "vitest";
import { jpegImage } from "../media/images.ts";
import {
  content,
  insertPost,
  postStatus,
  requestsOf,
  sandboxGet,
  sandboxPost,
  seedDemo,
  targetsOf,
  usePlatformTwins,
  waitFor,
} from "../publishing-support.ts";

// Defect: src/publishing/tiktok-publisher.ts:42-48 + :67-75. The "initiating" marker is saved before
// the photo init; when TikTok answers that init with a definite refusal that created nothing
// (429 rate_limit_exceeded, which the client classifies as transient), the retry finds the
// marker and fails the target for good as PUBLISH_OUTCOME_UNKNOWN. A rate-limited carousel is
// never published, although TikTok said plainly that no post was made.

const twins = usePlatformTwins((settings, storage) => {
  settings.tiktok.verifiedUrlPrefixes = [`${storage.url}/media/`];
});

type TikTokPost = { mediaType: string; status: string };

test("a TikTok photo init refused with 429 rate_limit_exceeded is retried and published once", async ({
  db,
}) => {
  const demo = await seedDemo(db, twins.sandbox.url);
  const publishing = twins.publishing(db);
  const photos = [await jpegImage(640, 480), await jpegImage(800, 600)];
  const urls = photos.map((photo, index) => twins.storage.put(`audit-rl-${index}.jpg`, photo, "image/jpeg"));
  await sandboxPost(twins.sandbox.url, "/_sandbox/requests", {}, "DELETE");
  await sandboxPost(twins.sandbox.url, "/_sandbox/faults", {
    operation: "tiktok.content.init",
    kind: "error",
    status: 429,
    error: "rate_limit_exceeded",
    retryAfterSeconds: 1,
  });
  const postId = await insertPost(db, {
    accountId: demo.accountId,
    connections: [{ id: demo.connections.tiktok, platform: "tiktok" }],
    content: content({
      caption: "rate limited carousel",
      mediaItems: urls.map((url) => ({ url, mediaType: "IMAGE" as const })),
    }),
  });
  const workers = publishing.startWorkers({
    workerId: "audit-rl",
    pollIntervalMs: 50,
    sweepIntervalMs: false,
  });
  try {
    await waitFor(async () => {
      const status = await postStatus(db, postId);
      return status === "published" || status === "failed" ? status : undefined;
    }, "the carousel to settle");
  } finally {
    await workers.stop();
  }
  const inits = await requestsOf(twins.sandbox.url, "tiktok.content.init");
  expect(inits[0]?.status).toBe(429); // the refused init created nothing
  const [target] = await targetsOf(db, postId);
  // Observed: status "failed", error "PUBLISH_OUTCOME_UNKNOWN: …", and no second init ever made.
  expect(target?.error ?? null).toBeNull();
  expect(target?.status).toBe("published");
  const { posts } = await sandboxGet<{ posts: TikTokPost[] }>(twins.sandbox.url, "/_sandbox/tiktok/posts");
  expect(posts.filter((post) => post.mediaType === "PHOTO")).toHaveLength(1);
});

/**
 * Audit: one account whose image posts point at a host that trickles their media (a byte every
 * 50 ms) held every worker slot until the download limit, and another account's due text post
 * waited ten minutes. Now an account beyond its share of the slots never takes the reserved one,
 * so the other account's post is published while the trickling downloads still run; and a stall
 * ends such a download after one window, retried once, instead of holding a slot until the total
 * limit eight times over.
 */
import { test } from "@app/testkit";
import { expect } from "vitest";
import { createAccount } from "../../src/store/accounts.ts";
import {
  content,
  insertPost,
  mediaFile,
  seedDemo,
  targetsOf,
  usePlatformTwins,
  useTricklingHost,
  waitFor,
  waitForSettledTarget,
} from "../publishing-support.ts";

const twins = usePlatformTwins();
const photo = mediaFile("jpeg", 200_000, 3);

/** A media host that sends each photo a byte every 50 ms, counting the downloads it holds open. */
const trickle = useTricklingHost(photo.bytes);

/** Ends every download in flight (the workers' runs then end, and they can stop). */
function cutDownloads(): void {
  for (const res of trickle.open) res.destroy();
}

test("one account's trickling media cannot keep another account's due post waiting", async ({ db }) => {
  const demo = await seedDemo(db, twins.sandbox.url);
  const other = await createAccount(db, { name: "Another account" });
  // A stall window far beyond the test: only the share of the slots can let the other post through.
  const publishing = twins.publishing(db, {
    media: { trustedOrigins: [trickle.url], connectTimeoutMs: 120_000 },
  });
  const bluesky = { id: demo.connections.bluesky, platform: "bluesky" };
  for (let index = 0; index < 8; index += 1) {
    await insertPost(db, {
      accountId: demo.accountId,
      connections: [bluesky],
      content: content({
        caption: `slow photo ${index}`,
        mediaItems: [{ url: `${trickle.url}/photo-${index}.jpg`, mediaType: "IMAGE" }],
      }),
      dueAt: new Date(Date.now() - 60_000),
    });
  }
  // Four slots: one account's share is one, one slot is reserved, so the photos hold three.
  const workers = publishing.startWorkers({ concurrency: 4, pollIntervalMs: 50, sweepIntervalMs: false });
  try {
    await waitFor(async () => trickle.open.size >= 3, "the photos' downloads to hold three slots");
    // The other account's text post (through the same Bluesky connection: the share is by account).
    const postId = await insertPost(db, {
      accountId: other.id,
      connections: [bluesky],
      content: content({ caption: "due while the photos trickle" }),
    });
    const settled = await waitForSettledTarget(db, postId, "the other account's post");
    expect(settled).toMatchObject({ status: "published", error: null });
    // It did not wait for a photo's download to end: they are all still trickling.
    expect(trickle.open.size).toBe(3);
    expect(trickle.mostOpen).toBe(3);
  } finally {
    cutDownloads();
    await workers.stop();
  }
});

test("a stalled download fails its target after one retry, with the reason, instead of holding a slot", async ({
  db,
}) => {
  const demo = await seedDemo(db, twins.sandbox.url);
  // A 300 ms stall window: a byte every 50 ms is far below the floor of 64 KiB a window.
  const publishing = twins.publishing(db, {
    media: { trustedOrigins: [trickle.url], connectTimeoutMs: 300 },
  });
  const postId = await insertPost(db, {
    accountId: demo.accountId,
    connections: [{ id: demo.connections.bluesky, platform: "bluesky" }],
    content: content({
      caption: "stalled photo",
      mediaItems: [{ url: `${trickle.url}/stalled.jpg`, mediaType: "IMAGE" }],
    }),
  });
  const workers = publishing.startWorkers({ concurrency: 2, pollIntervalMs: 50, sweepIntervalMs: false });
  try {
    const settled = await waitForSettledTarget(db, postId, "the stalled target to fail");
    expect(settled.status).toBe("failed");
    expect(settled.error).toMatch(/^MEDIA_UNAVAILABLE: .*stalled.*\(gave up after 2 attempts\)$/);
    const [target] = await targetsOf(db, postId);
    expect(target?.attempts).toBe(1);
  } finally {
    cutDownloads();
    await workers.stop();
  }
});

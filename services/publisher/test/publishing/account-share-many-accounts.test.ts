/**
 * Audit: the per-account share was easy to get around. Four accounts, each at its share (a
 * quarter of the slots), filled every slot with slow posts, and the reserved slot was kept only
 * from an account beyond its share: a fifth account's due post waited for a slow one to end. Now
 * the reserved slot is kept for accounts that have nothing running: an account that runs a target
 * never takes it, so the fifth account's post starts at once.
 */
import { test } from "@app/testkit";
import { expect } from "vitest";
import { createAccount } from "../../src/store/accounts.ts";
import {
  content,
  insertPost,
  mediaFile,
  seedDemo,
  usePlatformTwins,
  useTricklingHost,
  waitFor,
  waitForSettledTarget,
} from "../publishing-support.ts";

const twins = usePlatformTwins();
const photo = mediaFile("jpeg", 200_000, 6);

/** A media host that sends each photo a byte every 50 ms, counting the downloads it holds open. */
const trickle = useTricklingHost(photo.bytes);

test("four accounts at their share leave the reserved slot to a fifth account's due post", async ({ db }) => {
  const demo = await seedDemo(db, twins.sandbox.url);
  // A stall window far beyond the test: only the share of the slots can let the fifth post through.
  const publishing = twins.publishing(db, {
    media: { trustedOrigins: [trickle.url], connectTimeoutMs: 120_000 },
  });
  const bluesky = { id: demo.connections.bluesky, platform: "bluesky" };
  for (let account = 0; account < 4; account += 1) {
    const { id: accountId } = await createAccount(db, { name: `Slow account ${account}` });
    for (let index = 0; index < 2; index += 1) {
      await insertPost(db, {
        accountId,
        connections: [bluesky],
        content: content({
          caption: `slow photo ${account}.${index}`,
          mediaItems: [{ url: `${trickle.url}/photo-${account}-${index}.jpg`, mediaType: "IMAGE" }],
        }),
        dueAt: new Date(Date.now() - 60_000 + account * 1_000 + index * 100),
      });
    }
  }
  // Eight slots: a quarter (two) per account, so the four accounts' shares add up to every slot.
  const workers = publishing.startWorkers({ concurrency: 8, pollIntervalMs: 50, sweepIntervalMs: false });
  try {
    await waitFor(async () => trickle.open.size >= 7, "the slow photos to hold seven slots");
    const fifth = await createAccount(db, { name: "Fifth account" });
    const postId = await insertPost(db, {
      accountId: fifth.id,
      connections: [bluesky],
      content: content({ caption: "due while four accounts' photos trickle" }),
    });
    const settled = await waitForSettledTarget(db, postId, "the fifth account's post");
    expect(settled).toMatchObject({ status: "published", error: null });
    // It did not wait for a photo's download to end: they all still trickle, and never held the eighth slot.
    expect(trickle.open.size).toBe(7);
    expect(trickle.mostOpen).toBe(7);
  } finally {
    for (const res of trickle.open) res.destroy();
    await workers.stop();
  }
});

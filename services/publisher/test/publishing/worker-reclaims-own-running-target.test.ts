import { test } from "@app/testkit";
import { expect } from "vitest";
import { sandboxAdapters } from "../../src/demo.ts";
import {
  content,
  expireLeasesAndSweep,
  gateYouTubeChunks,
  insertPost,
  mediaFile,
  sandboxGet,
  seedDemo,
  targetsOf,
  usePlatformTwins,
  waitForSettledTarget,
} from "../publishing-support.ts";

// The cause of the lease-handover test's intermittent hang on PostgreSQL: once the sweeper handed
// back the target of a run that was still going (its lease ran out), the stale worker's own poll
// claimed it again, and a second run of the same target raced the first over the same upload
// session. On PGlite the other worker's claim always came first; on PostgreSQL under load the
// stale worker's poll (every 20 ms) often won. A process must not claim a target it still runs.

const twins = usePlatformTwins();

test("a worker does not claim again a target it is still running after its lease was handed back", async ({
  db,
}) => {
  const demo = await seedDemo(db, twins.sandbox.url);
  const video = mediaFile("mp4", 2 * 256 * 1024 + 100, 9);
  const url = twins.storage.put("reclaim.mp4", video.bytes, "video/mp4");
  const before = (await sandboxGet<{ videos: unknown[] }>(twins.sandbox.url, "/_sandbox/youtube/videos"))
    .videos.length;
  const postId = await insertPost(db, {
    accountId: demo.accountId,
    connections: [{ id: demo.connections.youtube, platform: "youtube" }],
    content: content({ caption: "reclaim", mediaItems: [{ url, mediaType: "VIDEO" }] }),
  });

  // The first chunk waits until the test lets it go: the run is in flight, holding no connection.
  const { adapters, at } = gateYouTubeChunks(sandboxAdapters(twins.sandbox.url), [1]);
  const { reached, open: release } = at(1);
  const worker = twins.publishing(db, { adapters }).startWorkers({
    workerId: "stale",
    pollIntervalMs: 20,
    sweepIntervalMs: false,
  });
  try {
    await reached;
    expect(await expireLeasesAndSweep(db, postId)).toHaveLength(1);

    // Some twenty polls later the target is still free for another worker.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const [waiting] = await targetsOf(db, postId);
    expect(waiting).toMatchObject({ claimedBy: null, status: "publishing" });

    // Once the stale run is over (its settlement refused: the claim is gone), this process may
    // claim the target again; it finds the session complete and settles it.
    release();
    const settled = await waitForSettledTarget(db, postId, "the target to settle");
    expect(settled).toMatchObject({ status: "published", error: null });
  } finally {
    release();
    await worker.stop();
  }
  const videos = (await sandboxGet<{ videos: unknown[] }>(twins.sandbox.url, "/_sandbox/youtube/videos"))
    .videos;
  expect(videos.length - before).toBe(1);
});

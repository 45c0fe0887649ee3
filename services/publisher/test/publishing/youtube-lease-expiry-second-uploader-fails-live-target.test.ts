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
  usePlatformTwins,
  waitForSettledTarget,
} from "../publishing-support.ts";

// On PostgreSQL under load this scenario used to hang at "worker B to reach its first chunk": no
// lock or pool wait (pg_stat_activity showed idle connections, pg_locks no waiter), but the target
// claimed again by worker A, whose own poll (every 20 ms) took the released target before B's
// first claim, while A's stale run was still in flight. A's second run then sat at A's gate 2 and
// B never got the target. A process no longer claims a target it is still running (see
// worker-reclaims-own-running-target.test.ts), so B takes it over on both databases.
//
// Defect: src/publishing/youtube-publisher.ts:50-62 with src/platforms/youtube/youtube-client.ts:96
// (kindOfStatus). When a lease runs out while its worker is still uploading (missed heartbeats,
// a stalled process) the sweeper hands the target to another worker; both now PUT chunks to the
// same resumable session. The holder's chunk then lands at an offset the stale worker already
// passed, YouTube answers 400 "the session holds N bytes: query and resume", and that is
// classified as a permanent refusal: the holder fails the target for good while the stale worker
// goes on to finish the video. The video exists, the target says failed (a user retry duplicates it).

const twins = usePlatformTwins();

type Video = { id: string; bytes: number };

/** `promise`, or a failure naming what did not happen within `ms`. */
const within = <T>(promise: Promise<T>, what: string, ms = 30_000) =>
  Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)),
  ]);

test("a stale worker still uploading does not make the lease holder fail a live YouTube target", async ({
  db,
}) => {
  const demo = await seedDemo(db, twins.sandbox.url);
  const video = mediaFile("mp4", 3 * 256 * 1024 + 1000, 5);
  const url = twins.storage.put("audit-lease.mp4", video.bytes, "video/mp4");
  const before = (await sandboxGet<{ videos: Video[] }>(twins.sandbox.url, "/_sandbox/youtube/videos")).videos
    .length;
  const postId = await insertPost(db, {
    accountId: demo.accountId,
    connections: [{ id: demo.connections.youtube, platform: "youtube" }],
    content: content({ caption: "lease race", mediaItems: [{ url, mediaType: "VIDEO" }] }),
  });

  // Worker A starts, saves the session, and is slow sending its first chunk.
  const a = gateYouTubeChunks(sandboxAdapters(twins.sandbox.url), [1, 2]);
  const workerA = twins.publishing(db, { adapters: a.adapters }).startWorkers({
    workerId: "audit-A",
    pollIntervalMs: 20,
    sweepIntervalMs: false,
  });
  await within(a.at(1).reached, "worker A to reach its first chunk");

  // A's heartbeats are missed (DB blip / stalled loop): its lease runs out and the sweeper releases it.
  expect(await expireLeasesAndSweep(db, postId)).toHaveLength(1);

  // Worker B claims it, asks the session (0 bytes) and is about to send its first chunk.
  const b = gateYouTubeChunks(sandboxAdapters(twins.sandbox.url), [1]);
  const workerB = twins.publishing(db, { adapters: b.adapters }).startWorkers({
    workerId: "audit-B",
    pollIntervalMs: 20,
    sweepIntervalMs: false,
  });
  await within(b.at(1).reached, "worker B to reach its first chunk");

  // A's chunk goes first (it was already on its way), then B's, which starts at a passed offset.
  a.at(1).open();
  // A's first chunk is in (the session holds 256 KiB) and A is about to send its second, unless A
  // has already noticed it lost its claim (a missed heartbeat) and stopped: either way B goes on.
  await Promise.race([a.at(2).reached, new Promise((resolve) => setTimeout(resolve, 3_000))]);
  b.at(1).open(); // B's first chunk starts at byte 0
  await waitForSettledTarget(db, postId, "B to settle").catch(() => undefined);
  a.at(2).open(); // the stale worker goes on and finishes the session

  let outcome: { status: string; error: string | null } | undefined;
  try {
    outcome = await waitForSettledTarget(db, postId, "the target to settle");
    await new Promise((resolve) => setTimeout(resolve, 500)); // let the stale worker finish its session
  } finally {
    await within(Promise.all([workerA.stop(), workerB.stop()]), "the workers to stop");
  }
  const videos = (await sandboxGet<{ videos: Video[] }>(twins.sandbox.url, "/_sandbox/youtube/videos"))
    .videos;
  expect(videos.length - before).toBe(1); // the session made one video...
  // ...and the target must say so. Observed: status "failed", error "badRequest: The chunk starts at byte 0, but the session holds 262144 bytes: …".
  expect(outcome).toMatchObject({ status: "published", error: null });
}, 120_000);

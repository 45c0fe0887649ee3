/**
 * Audit: a media host that sends just above the transfer-rate floor, but too slowly to finish
 * within the total download limit, failed each attempt with a bare `Error: aborted` (an
 * INTERNAL or plain transient failure): the target was retried the full number of attempts,
 * holding a worker up to the total limit each time. The total-time limit now counts as a stall:
 * the target fails after the stall cap, with the reason.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "@app/testkit";
import { afterAll, beforeAll, expect } from "vitest";
import {
  content,
  insertPost,
  mediaFile,
  seedDemo,
  targetsOf,
  usePlatformTwins,
  waitForSettledTarget,
} from "../publishing-support.ts";

const twins = usePlatformTwins();
const photo = mediaFile("jpeg", 70 * 1024, 4);
let server: Server;
let origin: string;
let downloads = 0;

beforeAll(async () => {
  // 70 KiB every 100 ms of an announced 50 MB: above 64 KiB a 300 ms window, never done in 1 s.
  server = createServer((_req, res) => {
    downloads += 1;
    res.writeHead(200, { "content-type": "image/jpeg", "content-length": 50_000_000 });
    res.write(photo.bytes);
    const timer = setInterval(() => res.write(Buffer.alloc(photo.bytes.length, 1)), 100);
    res.on("close", () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

test("media steadily above the stall floor but past the total limit fails after the stall cap", async ({
  db,
}) => {
  const demo = await seedDemo(db, twins.sandbox.url);
  // The tests' retry policy allows 5 attempts; a stall gets 2.
  const publishing = twins.publishing(db, {
    media: { trustedOrigins: [origin], connectTimeoutMs: 300, totalTimeoutMs: 1_000 },
  });
  const postId = await insertPost(db, {
    accountId: demo.accountId,
    connections: [{ id: demo.connections.bluesky, platform: "bluesky" }],
    content: content({
      caption: "a photo that never finishes",
      mediaItems: [{ url: `${origin}/photo.jpg`, mediaType: "IMAGE" }],
    }),
  });
  const workers = publishing.startWorkers({ concurrency: 2, pollIntervalMs: 50, sweepIntervalMs: false });
  try {
    const settled = await waitForSettledTarget(db, postId, "the target to fail");
    expect(settled.status).toBe("failed");
    expect(settled.error).toMatch(/^MEDIA_UNAVAILABLE: .*took longer.*\(gave up after 2 attempts\)$/);
    const [target] = await targetsOf(db, postId);
    expect(target?.status).toBe("failed");
    expect(downloads).toBe(2);
  } finally {
    server.closeAllConnections();
    await workers.stop();
  }
});

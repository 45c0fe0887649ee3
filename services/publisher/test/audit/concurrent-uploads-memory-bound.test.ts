/**
 * Audit 5: 8 raw uploads and 8 presigned PUTs of 32 MiB at once on one server, every one stored
 * byte for byte, every body chunk freed once written, and the process's peak RSS growth over the
 * transfer bounded (the bodies are allocated before the baseline; the client sends them without
 * copies). Before chunks were freed, the growth was 86–129 MB.
 */
import { createHash, randomFillSync } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { serveApp } from "@app/core";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import {
  countTransfers,
  presignVideo,
  publisherApp,
  putPresigned,
  seedAccount,
  uploadRaw,
} from "../support.ts";

const MiB = 1024 * 1024;
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe("audit5: concurrent uploads", () => {
  test("8 raw uploads and 8 presigned PUTs of 32 MiB at once are all exact, their chunks freed as written", async ({
    db,
  }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db, { now: new Date().toISOString() });
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    const bodies = Array.from({ length: 16 }, (_, n) => randomFillSync(Buffer.allocUnsafeSlow(32 * MiB + n)));
    const presigned = await Promise.all(bodies.slice(8).map((bytes) => presignVideo(app, key, bytes.length)));
    let freed: ReturnType<typeof countTransfers> | undefined;
    try {
      // Warm-up (JIT, first write), then the baseline.
      expect((await uploadRaw(server, key, randomFillSync(Buffer.alloc(4 * MiB)))).status).toBe(200);
      const start = process.memoryUsage.rss();
      let peak = start;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, 5);
      freed = countTransfers();
      const answers = await Promise.all(
        bodies.map((bytes, n) =>
          n < 8
            ? uploadRaw(server, key, bytes, `c${n}.mp4`)
            : putPresigned(server, (presigned[n - 8] as { url: URL }).url, bytes),
        ),
      );
      clearInterval(sampler);
      freed.restore();
      for (const [n, answer] of answers.entries()) {
        expect(answer.status, answer.text).toBe(200);
        const path =
          n < 8 ? (JSON.parse(answer.text) as { path: string }).path : (presigned[n - 8]?.path as string);
        expect(sha(await readFile(join(storage.options.dir, path))), `upload ${n}`).toBe(
          sha(bodies[n] as Buffer),
        );
      }
      // Node's parser hands bodies over in pieces of 64 KiB at most: every one was freed.
      expect(freed.count()).toBeGreaterThanOrEqual((16 * 32 * MiB) / (64 * 1024));
      // 16 uploads of about 8 MiB read-ahead each at most, were the chunks all alive at once; 42 MB
      // at most was seen, against 86–129 MB while spent chunks waited for the collector.
      expect((peak - start) / 1e6).toBeLessThan(80);
    } finally {
      freed?.restore();
      await server.close();
    }
  });
});

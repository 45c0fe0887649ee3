/**
 * Audit 5: 8 raw uploads and 8 presigned PUTs of 32 MiB at once on one server, every one stored
 * byte for byte, every body chunk freed once written, and the process's peak RSS growth over the
 * transfer bounded (the bodies are allocated before the baseline; the client sends them without
 * copies). Before chunks were freed, the growth was 86–129 MB.
 */
import { createHash, randomFillSync } from "node:crypto";
import { readFile } from "node:fs/promises";
import { request } from "node:http";
import { join } from "node:path";
import { type RunningServer, serveApp } from "@app/core";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { call, publisherApp, seedAccount } from "../support.ts";

const MiB = 1024 * 1024;
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function send(
  server: RunningServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  bytes: Buffer,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      { method, headers: { ...headers, "content-length": String(bytes.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.once("end", () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.once("error", reject);
    req.end(bytes);
  });
}

describe("audit5: concurrent uploads", () => {
  test("8 raw uploads and 8 presigned PUTs of 32 MiB at once are all exact, their chunks freed as written", async ({
    db,
  }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db, { now: new Date().toISOString() });
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    const transfer = ArrayBuffer.prototype.transfer;
    let transfers = 0;
    try {
      const size = 32 * MiB;
      const bodies = Array.from({ length: 16 }, (_, n) => randomFillSync(Buffer.allocUnsafeSlow(size + n)));
      const urls = await Promise.all(
        bodies.slice(8).map(async (bytes) => {
          const presign = await json(
            await call(app, "POST", "/api/v2/upload", key, {
              contentLength: bytes.length,
              contentType: "video/mp4",
            }),
          );
          return new URL(presign.uploadUrl as string);
        }),
      );
      // Warm-up (JIT, first write), then the baseline.
      const warm = randomFillSync(Buffer.alloc(4 * MiB));
      expect(
        (await send(server, "POST", "/api/v1/upload", { "x-api-key": key, "x-filename": "w.mp4" }, warm))
          .status,
      ).toBe(200);
      globalThis.gc?.();
      const start = process.memoryUsage.rss();
      let peak = start;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, 5);
      ArrayBuffer.prototype.transfer = function counted(this: ArrayBuffer, length?: number) {
        transfers += 1;
        return transfer.call(this, length);
      };
      const answers = await Promise.all(
        bodies.map((bytes, n) => {
          if (n < 8) {
            return send(
              server,
              "POST",
              "/api/v1/upload",
              { "x-api-key": key, "x-filename": `c${n}.mp4`, "content-type": "video/mp4" },
              bytes,
            );
          }
          const url = urls[n - 8] as URL;
          return send(
            server,
            "PUT",
            `${url.pathname}${url.search}`,
            { host: url.host, "content-type": "video/mp4" },
            bytes,
          );
        }),
      );
      clearInterval(sampler);
      ArrayBuffer.prototype.transfer = transfer;
      const growthMB = (peak - start) / 1e6;
      for (const [n, answer] of answers.entries()) {
        expect(answer.status, answer.text).toBe(200);
        const path =
          n < 8
            ? (JSON.parse(answer.text) as { path: string }).path
            : (urls[n - 8] as URL).pathname.split("/").at(-1);
        expect(sha(await readFile(join(storage.options.dir, path as string))), `upload ${n}`).toBe(
          sha(bodies[n] as Buffer),
        );
      }
      // Node's parser hands bodies over in pieces of 64 KiB at most: every one was freed.
      expect(transfers).toBeGreaterThanOrEqual((16 * 32 * MiB) / (64 * 1024));
      // 16 uploads of about 8 MiB read-ahead each at most, were the chunks all alive at once; 42 MB
      // at most was seen, against 86–129 MB while spent chunks waited for the collector.
      expect(growthMB).toBeLessThan(80);
    } finally {
      ArrayBuffer.prototype.transfer = transfer;
      await server.close();
    }
  });
});

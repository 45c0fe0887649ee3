/**
 * Audit: a client that sends the head and part of an upload body, then nothing. The server closes
 * an idle connection (`serveApp`'s idle timeout, shortened here from its 330 s) and the store
 * removes its temp file; a request that keeps moving has no total deadline.
 */
import { readdir } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { serveApp } from "@app/core";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { publisherApp, seedAccount } from "../support.ts";

const MiB = 1024 * 1024;
const IDLE_MS = 1_500;

describe("audit: stalled upload body", () => {
  test("a v1 upload stalled mid-body is closed and its temp file removed (not held forever)", async ({
    db,
  }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0, idleTimeoutMs: IDLE_MS });
    const started = Date.now();
    try {
      const closedAfter = await new Promise<number>((resolve) => {
        const socket = connect(server.port, "127.0.0.1", () => {
          socket.write(
            `POST /api/v1/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\nx-filename: clip.mp4\r\ncontent-type: video/mp4\r\ncontent-length: ${64 * MiB}\r\n\r\n`,
          );
          socket.write(Buffer.alloc(6 * MiB, 1));
        });
        socket.on("data", () => undefined);
        socket.on("close", () => resolve(Date.now() - started));
        socket.on("error", () => undefined);
        setTimeout(() => {
          socket.destroy();
          resolve(-1);
        }, 20 * IDLE_MS);
      });
      expect(closedAfter).toBeGreaterThanOrEqual(IDLE_MS);
      await new Promise((r) => setTimeout(r, 500));
      expect(await readdir(join(storage.options.dir, ".incoming")).catch(() => [])).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

/**
 * Audit 5: `writev` that writes only part of what it was given (as a real one may), so the
 * store's retry path runs, with the chunks of Node's own request freed after each batch. Also a
 * disk that fills after a partial write. `node:fs`'s `writev` is replaced; all else is real.
 */
import { createHash, randomFillSync } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { serveApp } from "@app/core";
import { test } from "@app/testkit";
import { describe, expect, vi } from "vitest";
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

const control = vi.hoisted(() => ({
  calls: 0,
  detachedSeen: 0,
  /** Fail with ENOSPC on this call number (counted across the test), if set. */
  failAt: undefined as number | undefined,
}));

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const writev = ((fd: number, buffers: NodeJS.ArrayBufferView[], ...rest: unknown[]) => {
    const callback = rest.at(-1) as (error: NodeJS.ErrnoException | null, written?: number) => void;
    const position = rest.length > 1 ? (rest[0] as number) : null;
    control.calls += 1;
    for (const buffer of buffers) if ((buffer.buffer as ArrayBuffer).detached) control.detachedSeen += 1;
    if (control.failAt !== undefined && control.calls >= control.failAt) {
      const error = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      process.nextTick(() => callback(error));
      return;
    }
    // Write a prefix only: about a third, cut in the middle of a buffer, at least one byte.
    const total = buffers.reduce((sum, buffer) => sum + buffer.byteLength, 0);
    let budget = Math.max(1, Math.floor(total / 3) + 13);
    const part: Uint8Array[] = [];
    for (const buffer of buffers) {
      if (budget === 0) break;
      const view = new Uint8Array(buffer.buffer, buffer.byteOffset, Math.min(buffer.byteLength, budget));
      part.push(view);
      budget -= view.byteLength;
    }
    return fs.writev(fd, part, position, callback);
  }) as typeof fs.writev;
  return { ...fs, writev, default: { ...fs, writev } };
});

describe("audit5: partial writes with freed chunks", () => {
  test("raw uploads and presigned PUTs whose writes land a third at a time are stored byte for byte", async ({
    db,
  }) => {
    control.calls = 0;
    control.detachedSeen = 0;
    control.failAt = undefined;
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db, { now: new Date().toISOString() });
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    const freed = countTransfers();
    try {
      for (const size of [1, 65537, 3 * MiB + 1, 11 * MiB + 333]) {
        const bytes = randomFillSync(Buffer.allocUnsafeSlow(size));
        const raw = await uploadRaw(server, key, bytes);
        expect(raw.status, raw.text).toBe(200);
        const { path } = JSON.parse(raw.text) as { path: string };
        expect(sha(await readFile(join(storage.options.dir, path)))).toBe(sha(bytes));
        const presigned = await presignVideo(app, key, bytes.length);
        const put = await putPresigned(server, presigned.url, bytes);
        expect(put.status, put.text).toBe(200);
        expect(sha(await readFile(join(storage.options.dir, presigned.path)))).toBe(sha(bytes));
      }
      expect(control.detachedSeen).toBe(0);
      expect(freed.count()).toBeGreaterThan(100);
      expect(control.calls).toBeGreaterThan(30);
    } finally {
      freed.restore();
      await server.close();
    }
  });

  test("a disk that fills after partial writes: 5xx for the PUT, nothing left, server still exact after", async ({
    db,
  }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db, { now: new Date().toISOString() });
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const bytes = randomFillSync(Buffer.allocUnsafeSlow(9 * MiB + 5));
      control.calls = 0;
      control.failAt = 4;
      const raw = await uploadRaw(server, key, bytes);
      expect(raw.status).toBeGreaterThanOrEqual(500);
      const { url } = await presignVideo(app, key, bytes.length);
      control.calls = 0;
      const put = await putPresigned(server, url, bytes);
      expect(put.status).toBe(500);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await readdir(storage.options.dir)).filter((n) => n !== ".incoming")).toEqual([]);
      expect(await readdir(join(storage.options.dir, ".incoming"))).toEqual([]);
      control.failAt = undefined;
      const again = await uploadRaw(server, key, bytes);
      expect(again.status, again.text).toBe(200);
      const { path } = JSON.parse(again.text) as { path: string };
      expect(sha(await readFile(join(storage.options.dir, path)))).toBe(sha(bytes));
      expect(control.detachedSeen).toBe(0);
    } finally {
      control.failAt = undefined;
      await server.close();
    }
  });
});

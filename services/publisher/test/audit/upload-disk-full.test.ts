/**
 * Audit: a disk that fills up mid-upload: `writev` fails with ENOSPC once a file holds 1 MiB (the
 * stores' writes go through `node:fs`'s `writev`, replaced here; every other call is the real one).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveApp } from "@app/core";
import { json, test } from "@app/testkit";
import { afterAll, describe, expect, vi } from "vitest";
import { LocalDiskStorage } from "../../src/storage/local-disk.ts";
import { call, publisherApp, seedAccount, sendBytes, TEST_BASE, TEST_CREDENTIALS } from "../support.ts";

const MiB = 1024 * 1024;

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const CAPACITY = 1024 * 1024;
  const held = new Map<number, number>();
  const writev = ((fd: number, buffers: NodeJS.ArrayBufferView[], ...rest: unknown[]) => {
    const callback = rest.at(-1) as (error: NodeJS.ErrnoException | null, written?: number) => void;
    const size = buffers.reduce((total, buffer) => total + buffer.byteLength, 0);
    const after = (held.get(fd) ?? 0) + size;
    if (after > CAPACITY) {
      const error = Object.assign(new Error("ENOSPC: no space left on device, write"), {
        code: "ENOSPC",
        errno: -28,
        syscall: "write",
      });
      process.nextTick(() => callback(error));
      return;
    }
    held.set(fd, after);
    return (fs.writev as (...args: unknown[]) => void)(fd, buffers, ...rest);
  }) as typeof fs.writev;
  return { ...fs, writev, default: { ...fs, writev } };
});

const ROOT = mkdtempSync(join(tmpdir(), "publisher-audit-full-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

function fullStorage(name: string): LocalDiskStorage {
  const dir = join(ROOT, name);
  mkdirSync(dir, { recursive: true });
  return new LocalDiskStorage({ dir, publicBaseUrl: () => TEST_BASE, credentials: TEST_CREDENTIALS });
}

const leftovers = (storage: LocalDiskStorage) => ({
  stored: readdirSync(storage.options.dir).filter((n) => n !== ".incoming"),
  incoming: (() => {
    try {
      return readdirSync(join(storage.options.dir, ".incoming"));
    } catch {
      return [];
    }
  })(),
});

describe("audit: disk full mid-upload", () => {
  test("a presigned PUT that hits ENOSPC is a server error, not the client's 'IncompleteBody' (it sent every byte)", async ({
    db,
  }) => {
    const storage = fullStorage("put");
    const { key } = await seedAccount(db);
    const { app } = publisherApp(db, { now: new Date().toISOString(), storage });
    const bytes = Buffer.alloc(3 * MiB, 1);
    const presign = await json(
      await call(app, "POST", "/api/v2/upload", key, {
        contentLength: bytes.length,
        contentType: "video/mp4",
      }),
    );
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const url = new URL(presign.uploadUrl);
      const res = await sendBytes(
        server,
        "PUT",
        `${url.pathname}${url.search}`,
        { host: url.host, "content-type": "video/mp4" },
        bytes,
      );
      expect(leftovers(storage)).toEqual({ stored: [], incoming: [] });
      // The client did send exactly Content-Length bytes; S3 answers a storage failure with a 5xx.
      expect(res.text).not.toContain("IncompleteBody");
      expect(res.status).toBeGreaterThanOrEqual(500);
    } finally {
      await server.close();
    }
  });

  test("a v1 raw upload that hits ENOSPC answers a JSON 5xx and leaves nothing behind", async ({ db }) => {
    const storage = fullStorage("raw");
    const { key } = await seedAccount(db);
    const { app } = publisherApp(db, { storage });
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const res = await sendBytes(
        server,
        "POST",
        "/api/v1/upload",
        { "x-api-key": key, "x-filename": "clip.mp4", "content-type": "video/mp4" },
        Buffer.alloc(3 * MiB, 2),
      );
      expect(res.status).toBeGreaterThanOrEqual(500);
      expect(res.text).not.toMatch(/ENOSPC|at \w+ \(/);
      expect(leftovers(storage)).toEqual({ stored: [], incoming: [] });
    } finally {
      await server.close();
    }
  });

  test("a multipart upload that hits ENOSPC is answered (not left hanging) and leaves nothing behind", async ({
    db,
  }) => {
    const storage = fullStorage("multipart");
    const { key } = await seedAccount(db);
    const { app } = publisherApp(db, { storage });
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const boundary = "----audit-full";
      const form = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="clip.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
        ),
        Buffer.alloc(48 * MiB, 3),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      for (let round = 0; round < 3; round += 1) {
        const answered = await Promise.race([
          sendBytes(
            server,
            "POST",
            "/api/v1/upload",
            { "x-api-key": key, "content-type": `multipart/form-data; boundary=${boundary}` },
            form,
          ),
          new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 15_000)),
        ]);
        expect(answered).not.toBe("hung");
        if (answered !== "hung") expect(answered.status).toBeGreaterThanOrEqual(500);
        expect(leftovers(storage)).toEqual({ stored: [], incoming: [] });
      }
    } finally {
      await server.close();
    }
  }, 90_000);
});

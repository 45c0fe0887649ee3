/**
 * Audit 5: what must never detach a buffer: a multipart upload (its file's chunks are slices of
 * the request's), a raw upload into the S3 store, and a staged copy of remote media.
 */
import { createHash, randomFillSync } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { serveApp } from "@app/core";
import { test } from "@app/testkit";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect } from "vitest";
import { stageMedia } from "../../src/media/staged-media.ts";
import type { LocalDiskStorage } from "../../src/storage/local-disk.ts";
import { type FakeS3, startFakeS3 } from "../fake-s3.ts";
import {
  countTransfers,
  publisherApp,
  seedAccount,
  testStorage,
  uploadMultipart,
  uploadRaw,
} from "../support.ts";

const MiB = 1024 * 1024;
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

let freed: ReturnType<typeof countTransfers>;
beforeEach(() => {
  freed = countTransfers();
});
afterEach(() => freed.restore());

let s3: FakeS3;
beforeAll(async () => {
  s3 = await startFakeS3({ honourRange: true });
});
afterAll(() => s3.close());

describe("audit5: nothing detached where chunks are not the store's", () => {
  test("a multipart upload of several MiB over HTTP: exact, nothing detached", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const bytes = randomFillSync(Buffer.allocUnsafeSlow(6 * MiB + 7));
      const res = await uploadMultipart(server, key, bytes);
      expect(res.status, res.text).toBe(200);
      const { path } = JSON.parse(res.text) as { path: string };
      expect(sha(await readFile(join(storage.options.dir, path)))).toBe(sha(bytes));
      expect(freed.count()).toBe(0);
    } finally {
      await server.close();
    }
  });

  test("a raw upload into the S3 store over HTTP: exact, nothing detached", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app } = publisherApp(db, { storage: s3.storage() as unknown as LocalDiskStorage });
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const bytes = randomFillSync(Buffer.allocUnsafeSlow(5 * MiB + 3));
      const res = await uploadRaw(server, key, bytes);
      expect(res.status, res.text).toBe(200);
      const { path } = JSON.parse(res.text) as { path: string };
      expect(sha(s3.objects.get(`/media/${path}`)?.body ?? Buffer.alloc(0))).toBe(sha(bytes));
      expect(freed.count()).toBe(0);
    } finally {
      await server.close();
    }
  });

  test("a staged copy of remote media: exact, the reader's chunks untouched", async () => {
    const storage = testStorage();
    const chunks = Array.from({ length: 12 }, () => randomFillSync(Buffer.allocUnsafeSlow(256 * 1024)));
    const whole = Buffer.concat(chunks);
    const reader = {
      open: async () => ({ stream: Readable.from(chunks), size: whole.length, contentType: "video/mp4" }),
    };
    const staged = await stageMedia(
      { storage, reader: reader as never },
      "https://cdn.example.com/clip.mp4",
      "staged_tgt_audit5_0",
    );
    expect(staged.size).toBe(whole.length);
    expect(sha(await readFile(join(storage.options.dir, "staged_tgt_audit5_0")))).toBe(sha(whole));
    expect(chunks.some((chunk) => chunk.buffer.detached)).toBe(false);
    expect(freed.count()).toBe(0);
  });
});

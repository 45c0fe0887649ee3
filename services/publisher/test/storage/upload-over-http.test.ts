import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { type RunningServer, serveApp } from "@app/core";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import type { LocalDiskStorage } from "../../src/storage/local-disk.ts";
import {
  countTransfers,
  presignVideo,
  publisherApp,
  putPresigned,
  seedAccount,
  uploadMultipart,
  uploadRaw,
} from "../support.ts";

const MiB = 1024 * 1024;

/** `size` bytes that differ from chunk to chunk, so a misplaced batch would show. */
function body(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let at = 0; at + 4 <= size; at += 4) bytes.writeUInt32LE(at, at);
  return bytes;
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** Records every write the storage starts, to wait for each to settle (its cleanup included). */
function watchWrites(storage: LocalDiskStorage): Promise<unknown>[] {
  const started: Promise<unknown>[] = [];
  const write = storage.write.bind(storage);
  storage.write = (...args) => {
    const writing = write(...args);
    started.push(writing.catch((error: unknown) => error));
    return writing;
  };
  return started;
}

/** Sends a head and `sent` bytes of a longer body, then drops the connection. */
function abortMidBody(server: RunningServer, head: string, sent: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const socket = connect(server.port, "127.0.0.1", () => {
      socket.write(head);
      socket.write(Buffer.alloc(sent, 7), () => setTimeout(() => socket.destroy(), 200));
    });
    socket.on("close", () => resolve());
    socket.on("error", () => resolve());
  });
}

async function settled(started: Promise<unknown>[]): Promise<unknown> {
  for (let attempt = 0; attempt < 200 && started.length === 0; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(started).toHaveLength(1);
  return started[0];
}

const leftovers = async (storage: LocalDiskStorage) => ({
  stored: (await readdir(storage.options.dir).catch(() => [] as string[])).filter((n) => n !== ".incoming"),
  incoming: await readdir(join(storage.options.dir, ".incoming")).catch(() => [] as string[]),
});

/** Whether each storage write was told the body's chunks are its own. */
function watchOwnership(storage: LocalDiskStorage): boolean[] {
  const seen: boolean[] = [];
  const write = storage.write.bind(storage);
  storage.write = (path, stream, options) => {
    seen.push(options.ownsChunks === true);
    return write(path, stream, options);
  };
  return seen;
}

describe("uploads over real HTTP (Node's request stream straight to the file)", () => {
  test("a v1 raw body of many write batches is stored byte for byte", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const bytes = body(24 * MiB + 123);
      const res = await uploadRaw(server, key, bytes);
      expect(res.status).toBe(200);
      const { path } = JSON.parse(res.text) as { path: string };
      const stored = await readFile(join(storage.options.dir, path));
      expect(stored.length).toBe(bytes.length);
      expect(sha256(stored)).toBe(sha256(bytes));
      expect((await leftovers(storage)).incoming).toEqual([]);
    } finally {
      await server.close();
    }
  });

  test("Node's own request chunks are handed to the store as its own (freed once written); a multipart file's and a web body's are not", async ({
    db,
  }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db, { now: new Date().toISOString() });
    const owned = watchOwnership(storage);
    const bytes = body(3 * MiB + 5);
    const { url } = await presignVideo(app, key, bytes.length);
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const freed = countTransfers();
      try {
        expect((await uploadRaw(server, key, bytes)).status).toBe(200);
      } finally {
        freed.restore();
      }
      // Node's parser hands a body over in pieces of 64 KiB at most: each was freed once written.
      expect(freed.count()).toBeGreaterThanOrEqual(Math.floor(bytes.length / (64 * 1024)));
      expect((await putPresigned(server, url, bytes)).status).toBe(200);
      expect((await uploadMultipart(server, key, bytes)).status).toBe(200);
    } finally {
      await server.close();
    }
    const viaWeb = await app.request("/api/v1/upload", {
      method: "POST",
      headers: {
        "x-api-key": key,
        "x-filename": "clip.mp4",
        "content-type": "video/mp4",
        "content-length": "6",
      },
      body: Buffer.from("abcdef"),
    });
    expect(viaWeb.status).toBe(200);
    expect(owned).toEqual([true, true, false, false]);
  });

  test("a multipart file of several MiB is stored byte for byte", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const bytes = body(5 * MiB + 3);
      const res = await uploadMultipart(server, key, bytes);
      expect(res.status).toBe(200);
      const { path } = JSON.parse(res.text) as { path: string };
      expect(sha256(await readFile(join(storage.options.dir, path)))).toBe(sha256(bytes));
    } finally {
      await server.close();
    }
  });

  test("a presigned PUT of many write batches is stored byte for byte", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db, { now: new Date().toISOString() });
    const bytes = body(20 * MiB + 7);
    const { url, path } = await presignVideo(app, key, bytes.length);
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      expect((await putPresigned(server, url, bytes)).status).toBe(200);
      const stored = await readFile(join(storage.options.dir, path));
      expect(sha256(stored)).toBe(sha256(bytes));
      expect((await leftovers(storage)).incoming).toEqual([]);
    } finally {
      await server.close();
    }
  });

  test("a presigned PUT whose client disconnects mid-body leaves no file behind", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db, { now: new Date().toISOString() });
    const started = watchWrites(storage);
    const { url } = await presignVideo(app, key, 4 * MiB);
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      await abortMidBody(
        server,
        `PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\ncontent-type: video/mp4\r\ncontent-length: ${4 * MiB}\r\n\r\n`,
        1.5 * MiB,
      );
      expect(await settled(started)).toBeInstanceOf(Error);
      expect(await leftovers(storage)).toEqual({ stored: [], incoming: [] });
    } finally {
      await server.close();
    }
  });

  test("a v1 upload whose client disconnects after several MiB leaves no file behind", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const started = watchWrites(storage);
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      await abortMidBody(
        server,
        `POST /api/v1/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\nx-filename: clip.mp4\r\ncontent-type: video/mp4\r\ncontent-length: ${32 * MiB}\r\n\r\n`,
        6 * MiB,
      );
      expect(await settled(started)).toBeInstanceOf(Error);
      expect(await leftovers(storage)).toEqual({ stored: [], incoming: [] });
    } finally {
      await server.close();
    }
  });
});

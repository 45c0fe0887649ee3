import { readdir } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { serveApp } from "@app/core";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { IncompleteBodyError } from "../../src/storage/errors.ts";
import { publisherApp, seedAccount, testStorage } from "../support.ts";

const files = async (dir: string) =>
  (await readdir(dir).catch(() => [] as string[])).filter((n) => n !== ".incoming");

describe("local-disk storage", () => {
  test("a body of the expected size is stored whole with its type", async () => {
    const storage = testStorage();
    await storage.write("med_a.mp4", Readable.from([Buffer.from("abc"), Buffer.from("def")]), {
      contentType: "video/mp4",
      expectedBytes: 6,
    });
    const read = await storage.read("med_a.mp4", { start: 2, end: 3 });
    const chunks: Buffer[] = [];
    for await (const chunk of read.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe("cd");
    expect(read).toMatchObject({ size: 6, contentType: "video/mp4" });
    expect(await storage.exists("med_a.mp4")).toBe(true);
  });

  test("a body longer or shorter than expected fails and leaves nothing", async () => {
    const storage = testStorage();
    for (const body of ["abcdefg", "abcde"]) {
      await expect(
        storage.write("med_b.mp4", Readable.from([Buffer.from(body)]), {
          contentType: "video/mp4",
          expectedBytes: 6,
        }),
      ).rejects.toBeInstanceOf(IncompleteBodyError);
    }
    expect(await files(storage.options.dir)).toEqual([]);
    expect(await readdir(join(storage.options.dir, ".incoming"))).toEqual([]);
  });

  test("a body many write batches long is stored byte for byte", async () => {
    const storage = testStorage();
    const chunk = (n: number) => Buffer.alloc(64 * 1024 + (n % 3), n % 251);
    const chunks = Array.from({ length: 300 }, (_, n) => chunk(n));
    const whole = Buffer.concat(chunks);
    await storage.write("med_big.mp4", Readable.from(chunks), {
      contentType: "video/mp4",
      expectedBytes: whole.length,
    });
    const read = await storage.read("med_big.mp4");
    const stored: Buffer[] = [];
    for await (const part of read.stream) stored.push(part as Buffer);
    expect(Buffer.concat(stored).equals(whole)).toBe(true);
    expect(read.size).toBe(whole.length);
  });

  test("chunks the body gives away (ownsChunks) are freed once written; shared ones never", async () => {
    const storage = testStorage();
    const own = (n: number) => {
      const chunk = Buffer.allocUnsafeSlow(300 * 1024);
      chunk.fill(n);
      return chunk;
    };
    const owned = Array.from({ length: 12 }, (_, n) => own(n));
    const backing = Buffer.alloc(3 * 1024, 9);
    const slices = [backing.subarray(0, 1024), backing.subarray(1024)];
    const pooled = Buffer.from("pooled bytes");
    const expected = Buffer.concat([...owned, ...slices, pooled]);
    await storage.write("med_own.mp4", Readable.from([...owned, ...slices, pooled]), {
      contentType: "video/mp4",
      expectedBytes: expected.length,
      ownsChunks: true,
    });
    const stored: Buffer[] = [];
    for await (const part of (await storage.read("med_own.mp4")).stream) stored.push(part as Buffer);
    expect(Buffer.concat(stored).equals(expected)).toBe(true);
    expect(owned.map((chunk) => chunk.buffer.detached)).toEqual(owned.map(() => true));
    expect([backing.buffer.detached, pooled.buffer.detached]).toEqual([false, false]);
    expect(backing.equals(Buffer.alloc(3 * 1024, 9))).toBe(true);

    const kept = Array.from({ length: 4 }, (_, n) => own(n));
    await storage.write("med_kept.mp4", Readable.from(kept), { contentType: "video/mp4" });
    const watched = Array.from({ length: 4 }, (_, n) => own(n));
    const body = Readable.from(watched);
    body.on("data", () => undefined);
    await storage.write("med_watched.mp4", body, { contentType: "video/mp4", ownsChunks: true });
    expect([...kept, ...watched].some((chunk) => chunk.buffer.detached)).toBe(false);
  });

  test("a body that fails midway, or was aborted before the store read it, leaves nothing", async () => {
    const storage = testStorage();
    const failing = new Readable({ read() {} });
    failing.push(Buffer.alloc(3 * 1024 * 1024, 1));
    setTimeout(() => failing.destroy(new Error("socket hang up")), 20);
    await expect(
      storage.write("med_c.mp4", failing, { contentType: "video/mp4", expectedBytes: 8 * 1024 * 1024 }),
    ).rejects.toThrow("socket hang up");
    const aborted = new PassThrough();
    aborted.destroy();
    await expect(storage.write("med_d.mp4", aborted, { contentType: "video/mp4" })).rejects.toThrow(
      /premature close/i,
    );
    expect(await files(storage.options.dir)).toEqual([]);
    expect(await readdir(join(storage.options.dir, ".incoming"))).toEqual([]);
  });

  test("paths that could leave the folder are refused", async () => {
    const storage = testStorage();
    expect(await storage.exists("../etc/passwd")).toBe(false);
    expect(storage.pathOf("http://localhost/media/../x")).toBeUndefined();
    expect(storage.pathOf("http://localhost/media/med_ok.mp4")).toBe("med_ok.mp4");
    expect(storage.pathOf("https://elsewhere.test/media/med_ok.mp4")).toBeUndefined();
  });

  test("an upload whose client disconnects mid-body over real HTTP leaves no file behind", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const writes: Promise<unknown>[] = [];
    const write = storage.write.bind(storage);
    storage.write = (...args) => {
      const writing = write(...args);
      writes.push(writing.catch((error: unknown) => error));
      return writing;
    };
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      await new Promise<void>((resolve) => {
        const socket = connect(server.port, "127.0.0.1", () => {
          socket.write(
            `POST /api/v1/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\nx-filename: clip.mp4\r\ncontent-type: video/mp4\r\ncontent-length: 100000\r\n\r\n`,
          );
          socket.write(Buffer.alloc(20_000, 7), () => setTimeout(() => socket.destroy(), 200));
        });
        socket.on("close", () => resolve());
        socket.on("error", () => resolve());
      });
      // The store's write settles (its cleanup done) once the server has seen the disconnect.
      for (let attempt = 0; attempt < 200 && writes.length === 0; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(writes).toHaveLength(1);
      expect(await writes[0]).toBeInstanceOf(Error);
      expect(await readdir(join(storage.options.dir, ".incoming"))).toEqual([]);
      expect(await files(storage.options.dir)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

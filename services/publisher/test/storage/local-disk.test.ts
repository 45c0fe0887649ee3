import { readdir } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { Readable } from "node:stream";
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
      for (let attempt = 0; attempt < 50; attempt += 1) {
        const incoming = await readdir(join(storage.options.dir, ".incoming")).catch(() => ["pending"]);
        if (incoming.length === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await readdir(join(storage.options.dir, ".incoming"))).toEqual([]);
      expect(await files(storage.options.dir)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

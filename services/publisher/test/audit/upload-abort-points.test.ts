/** Audit: uploads whose client drops at various points leave no temp file and no object. */
import { readdir } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { type RunningServer, serveApp } from "@app/core";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import type { LocalDiskStorage } from "../../src/storage/local-disk.ts";
import { publisherApp, seedAccount } from "../support.ts";

const MiB = 1024 * 1024;

function abortAfter(server: RunningServer, head: string, sent: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const socket = connect(server.port, "127.0.0.1", () => {
      socket.write(head);
      if (sent === 0) setTimeout(() => socket.destroy(), 200);
      else socket.write(Buffer.alloc(sent, 7), () => setTimeout(() => socket.destroy(), 200));
    });
    socket.on("close", () => resolve());
    socket.on("error", () => resolve());
  });
}

const leftovers = async (storage: LocalDiskStorage) => ({
  stored: (await readdir(storage.options.dir).catch(() => [] as string[])).filter((n) => n !== ".incoming"),
  incoming: await readdir(join(storage.options.dir, ".incoming")).catch(() => [] as string[]),
});

describe("audit: upload abort points", () => {
  for (const sent of [0, 1, 1 * MiB - 1, 1 * MiB, 4 * MiB + 17, 9 * MiB]) {
    test(`a v1 raw upload dropped after ${sent} of 16 MiB leaves nothing`, async ({ db }) => {
      const { key } = await seedAccount(db);
      const { app, storage } = publisherApp(db);
      const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
      try {
        await abortAfter(
          server,
          `POST /api/v1/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\nx-filename: clip.mp4\r\ncontent-type: video/mp4\r\ncontent-length: ${16 * MiB}\r\n\r\n`,
          sent,
        );
        await new Promise((r) => setTimeout(r, 300));
        expect(await leftovers(storage)).toEqual({ stored: [], incoming: [] });
      } finally {
        await server.close();
      }
    });
  }

  for (const sent of [10, 2 * MiB, 7 * MiB]) {
    test(`a multipart upload dropped after ${sent} bytes of its file leaves nothing and settles`, async ({
      db,
    }) => {
      const { key } = await seedAccount(db);
      const { app, storage } = publisherApp(db);
      const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
      const boundary = "----audit-abort";
      const part = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="clip.mp4"\r\nContent-Type: video/mp4\r\n\r\n`;
      try {
        await abortAfter(
          server,
          `POST /api/v1/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\ncontent-type: multipart/form-data; boundary=${boundary}\r\ncontent-length: ${16 * MiB}\r\n\r\n${part}`,
          sent,
        );
        await new Promise((r) => setTimeout(r, 300));
        expect(await leftovers(storage)).toEqual({ stored: [], incoming: [] });
      } finally {
        await server.close();
      }
    });
  }
});

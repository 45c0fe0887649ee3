/**
 * Audit: a multipart upload whose storage write fails before or while it reads the file (here:
 * the temp folder cannot be made, as with EMFILE/EACCES/ENOSPC on open) must still be answered.
 * The store stops reading the file stream, busboy then stops reading the request, and the
 * handler waits for the whole body (streamInto) before it answers.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type RunningServer, serveApp } from "@app/core";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { publisherApp, seedAccount, sendBytes } from "../support.ts";

const MiB = 1024 * 1024;

/** A multipart body POSTed to v1 upload in 64 KiB writes. */
const send = (server: RunningServer, headers: Record<string, string>, bytes: Buffer) =>
  sendBytes(server, "POST", "/api/v1/upload", headers, bytes);

describe("audit: multipart upload when the store fails", () => {
  test("a multipart upload whose storage cannot open its temp file is answered with an error, not left hanging", async ({
    db,
  }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    // The temp folder's name is taken by a file: mkdir/open fail at once.
    writeFileSync(join(storage.options.dir, ".incoming"), "not a folder");
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const boundary = "----audit-open-fails";
      const form = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="clip.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
        ),
        Buffer.alloc(8 * MiB, 5),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const answered = await Promise.race([
        send(server, { "x-api-key": key, "content-type": `multipart/form-data; boundary=${boundary}` }, form),
        new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 15_000)),
      ]);
      expect(answered).not.toBe("hung");
      if (answered !== "hung") expect(answered.status).toBeGreaterThanOrEqual(500);
    } finally {
      await server.close();
    }
  }, 60_000);

  test("the same failure on a raw (x-filename) upload is answered at once (control)", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    writeFileSync(join(storage.options.dir, ".incoming"), "not a folder");
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const answered = await Promise.race([
        send(
          server,
          { "x-api-key": key, "x-filename": "clip.mp4", "content-type": "video/mp4" },
          Buffer.alloc(8 * MiB, 5),
        ),
        new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 15_000)),
      ]);
      expect(answered).not.toBe("hung");
      if (answered !== "hung") {
        expect(answered.status).toBe(500);
        expect(JSON.parse(answered.text)).toMatchObject({ error: "INTERNAL" });
      }
    } finally {
      await server.close();
    }
  }, 60_000);
});

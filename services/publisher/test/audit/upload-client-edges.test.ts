/**
 * Audit: how the v1 upload answers a client that goes away, one that half-closes after a short
 * body, and an empty file. An abort is the client's doing (logged as such, never a 500 with a
 * stack); a short body is `INCOMPLETE_UPLOAD` JSON, not Node's bare `400 Bad Request`; a zero-byte
 * upload is refused as v2 refuses it.
 */
import { readdir } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { type RunningServer, serveApp } from "@app/core";
import { captureLogs, json, test } from "@app/testkit";
import { describe, expect, vi } from "vitest";
import type { LocalDiskStorage } from "../../src/storage/local-disk.ts";
import { publisherApp, seedAccount } from "../support.ts";

const MiB = 1024 * 1024;

const rawHead = (key: string, length: number) =>
  `POST /api/v1/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\nx-filename: clip.mp4\r\ncontent-type: video/mp4\r\ncontent-length: ${length}\r\n\r\n`;

const BOUNDARY = "----edge-boundary";
const multipartHead = (key: string, length: number) =>
  `POST /api/v1/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\ncontent-type: multipart/form-data; boundary=${BOUNDARY}\r\ncontent-length: ${length}\r\n\r\n`;
const filePart = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="clip.mp4"\r\nContent-Type: video/mp4\r\n\r\n`;

/** Sends `head` and `body`, then half-closes (FIN) and reads the whole answer. */
function sendAndHalfClose(server: RunningServer, head: string, body: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(server.port, "127.0.0.1", () => {
      socket.write(head);
      socket.write(body, () => socket.end());
    });
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
    socket.on("error", () => undefined);
  });
}

/** Sends `head` and `sent` bytes of the body, then drops the connection (closed, or reset: RST). */
function abortAfter(server: RunningServer, head: string, sent: number, reset = false): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(server.port, "127.0.0.1", () => {
      socket.write(head);
      socket.write(Buffer.alloc(sent, 7), () =>
        setTimeout(() => (reset ? socket.resetAndDestroy() : socket.destroy()), 200),
      );
    });
    socket.on("close", () => resolve());
    socket.on("error", () => resolve());
  });
}

const leftovers = async (storage: LocalDiskStorage) => ({
  stored: (await readdir(storage.options.dir).catch(() => [] as string[])).filter((n) => n !== ".incoming"),
  incoming: await readdir(join(storage.options.dir, ".incoming")).catch(() => [] as string[]),
});

const parsed = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe("audit: a v1 upload the client aborts", () => {
  for (const [kind, reset] of [
    ["raw", false],
    ["raw", true],
    ["multipart", false],
    ["multipart", true],
  ] as const) {
    test(`a ${kind} upload ${reset ? "reset" : "closed"} mid-body is logged as a client abort: no error, no stack, no 500`, async ({
      db,
    }) => {
      const consoleErrors = vi.spyOn(console, "error");
      const { key } = await seedAccount(db);
      const logs = captureLogs("debug");
      const { app, storage } = publisherApp(db, { logger: logs.logger });
      const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
      try {
        const head = kind === "raw" ? rawHead(key, 16 * MiB) : multipartHead(key, 16 * MiB) + filePart;
        await abortAfter(server, head, 2 * MiB, reset);
        await new Promise((r) => setTimeout(r, 400));
        const lines = parsed(logs.lines);
        // pino levels: 50 error, 40 warn, 30 info.
        expect(lines.filter((line) => (line.level as number) >= 50)).toEqual([]);
        expect(JSON.stringify(lines)).not.toContain('"stack"');
        const request = lines.find((line) => line.msg === "request");
        expect(request?.status).not.toBe(500);
        const abort = lines.find(
          (line) => line.msg === "upload ended by the client before its body was complete",
        );
        expect(abort).toMatchObject({ level: 30, expectedBytes: 16 * MiB });
        expect(await leftovers(storage)).toEqual({ stored: [], incoming: [] });
        expect(consoleErrors).not.toHaveBeenCalled();
      } finally {
        consoleErrors.mockRestore();
        await server.close();
      }
    });
  }
});

describe("audit: a short v1 upload body followed by a half-close", () => {
  test("a raw body is answered INCOMPLETE_UPLOAD as JSON, not Node's bare 400", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const answer = await sendAndHalfClose(server, rawHead(key, 1000), Buffer.alloc(400, 1));
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toMatch(/content-type: application\/json/i);
      const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
      expect(body).toMatchObject({ error: "INCOMPLETE_UPLOAD", expectedBytes: 1000 });
      await new Promise((r) => setTimeout(r, 200));
      expect(await leftovers(storage)).toEqual({ stored: [], incoming: [] });
    } finally {
      await server.close();
    }
  });

  test("a multipart body is answered INCOMPLETE_UPLOAD as JSON too", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const part = Buffer.from(`${filePart}${"x".repeat(300)}`);
      const answer = await sendAndHalfClose(server, multipartHead(key, part.length + 500), part);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
      expect(body).toMatchObject({ error: "INCOMPLETE_UPLOAD" });
      await new Promise((r) => setTimeout(r, 200));
      expect(await leftovers(storage)).toEqual({ stored: [], incoming: [] });
    } finally {
      await server.close();
    }
  });
});

describe("audit: a half-close while the key is still being checked", () => {
  test("is answered INCOMPLETE_UPLOAD as JSON too (the watch starts before the key lookup)", async ({
    db,
  }) => {
    const { key } = await seedAccount(db);
    // A database that answers slowly (a remote PostgreSQL): the FIN arrives before the key is known.
    const slow = new Proxy(db, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (name !== "query" || typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          await new Promise((r) => setTimeout(r, 300));
          return value.apply(target, args);
        };
      },
    });
    const { app, storage } = publisherApp(slow);
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const answer = await sendAndHalfClose(server, rawHead(key, 1000), Buffer.alloc(400, 1));
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
      expect(body).toMatchObject({ error: "INCOMPLETE_UPLOAD", expectedBytes: 1000 });
      await new Promise((r) => setTimeout(r, 1000));
      expect(await leftovers(storage)).toEqual({ stored: [], incoming: [] });
    } finally {
      await server.close();
    }
  });
});

describe("audit: a zero-byte v1 upload", () => {
  test("a raw upload of no bytes is refused as v2 refuses it, and nothing is stored", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const res = await app.request("/api/v1/upload", {
      method: "POST",
      headers: { "x-api-key": key, "x-filename": "clip.mp4", "content-length": "0" },
      body: "",
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body).toMatchObject({ error: "VALIDATION_FAILED", issues: [{ path: "content-length" }] });
    const v2 = await app.request("/api/v2/upload", {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ contentLength: 0, filename: "clip.mp4" }),
    });
    expect(v2.status).toBe(400);
    expect(await json(v2)).toMatchObject({ error: "VALIDATION_FAILED", issues: [{ path: "contentLength" }] });
    expect(await leftovers(storage)).toEqual({ stored: [], incoming: [] });
  });

  test("a multipart file of no bytes is refused the same way, and nothing is stored", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const form = Buffer.from(`${filePart}\r\n--${BOUNDARY}--\r\n`);
    const res = await app.request("/api/v1/upload", {
      method: "POST",
      headers: {
        "x-api-key": key,
        "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
        "content-length": String(form.length),
      },
      body: form,
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error: "VALIDATION_FAILED", issues: [{ path: "file" }] });
    expect(await leftovers(storage)).toEqual({ stored: [], incoming: [] });
  });
});

/**
 * Audit 5: the local store detaches each written chunk of Node's own request (`ownsChunks`).
 * Everything here goes over real HTTP (raw sockets, so packetization, keep-alive, pipelining and
 * `Expect: 100-continue` are under the test's control) and checks the stored bytes by sha256, with
 * `ArrayBuffer.prototype.transfer` counted so the freeing path is known to have run.
 */
import { createHash, randomFillSync } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { type RunningServer, type ServiceApp, serveApp } from "@app/core";
import { test } from "@app/testkit";
import { afterEach, beforeEach, describe, expect } from "vitest";
import type { LocalDiskStorage } from "../../src/storage/local-disk.ts";
import { countTransfers, presignVideo, publisherApp, seedAccount } from "../support.ts";

const MiB = 1024 * 1024;
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const random = (size: number) => randomFillSync(Buffer.allocUnsafeSlow(size));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let freed: ReturnType<typeof countTransfers>;
beforeEach(() => {
  freed = countTransfers();
});
afterEach(() => freed.restore());

type Answer = { status: number; headers: Record<string, string>; body: string };

/** One client connection that reads responses one after another (keep-alive, pipelining). */
class Conn {
  private buffered = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  closed = false;
  readonly socket: Socket;
  constructor(server: RunningServer) {
    this.socket = connect(server.port, "127.0.0.1");
    this.socket.setNoDelay(true);
    this.socket.on("data", (data: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, data]);
      this.wake();
    });
    this.socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
    this.socket.on("error", () => undefined);
  }
  private wake() {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
  ready(): Promise<void> {
    return new Promise((resolve) => this.socket.once("connect", () => resolve()));
  }
  write(bytes: Buffer | string): Promise<void> {
    return new Promise((resolve) => this.socket.write(bytes, () => resolve()));
  }
  /** The next response (an interim 1xx counts as one). */
  async next(timeoutMs = 20_000): Promise<Answer> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const end = this.buffered.indexOf("\r\n\r\n");
      if (end >= 0) {
        const head = this.buffered.subarray(0, end).toString("latin1").split("\r\n");
        const status = Number(head[0]?.split(" ")[1]);
        const headers: Record<string, string> = {};
        for (const line of head.slice(1)) {
          const at = line.indexOf(":");
          headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
        }
        if (status >= 200 && headers["transfer-encoding"] === "chunked") {
          // Enough for these answers: the chunks' sizes and data, up to the last (empty) one.
          let at = end + 4;
          const parts: Buffer[] = [];
          for (;;) {
            const line = this.buffered.indexOf("\r\n", at);
            if (line < 0) break;
            const size = Number.parseInt(this.buffered.subarray(at, line).toString("latin1"), 16);
            if (this.buffered.length < line + 2 + size + 2) break;
            parts.push(this.buffered.subarray(line + 2, line + 2 + size));
            at = line + 2 + size + 2;
            if (size === 0) {
              this.buffered = this.buffered.subarray(at);
              return { status, headers, body: Buffer.concat(parts).toString("utf8") };
            }
          }
        }
        const length =
          status < 200 || headers["transfer-encoding"] === "chunked"
            ? Number.POSITIVE_INFINITY
            : Number(headers["content-length"] ?? 0);
        if (status < 200) {
          this.buffered = this.buffered.subarray(end + 4);
          return { status, headers, body: "" };
        }
        if (this.buffered.length >= end + 4 + length) {
          const body = this.buffered.subarray(end + 4, end + 4 + length).toString("utf8");
          this.buffered = this.buffered.subarray(end + 4 + length);
          return { status, headers, body };
        }
      }
      if (this.closed) throw new Error(`connection closed; had: ${this.buffered.toString("latin1")}`);
      if (Date.now() > until) throw new Error("no response in time");
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }
  end() {
    this.socket.destroy();
  }
}

const rawHead = (key: string, length: number, extra = "") =>
  `POST /api/v1/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\nx-filename: clip.mp4\r\ncontent-type: video/mp4\r\ncontent-length: ${length}\r\n${extra}\r\n`;

async function stored(storage: LocalDiskStorage, answer: Answer): Promise<string> {
  expect(answer.status, answer.body).toBe(200);
  const { path } = JSON.parse(answer.body) as { path: string };
  return sha(await readFile(join(storage.options.dir, path)));
}

async function presignedHead(app: ServiceApp, key: string, length: number): Promise<string> {
  const { url } = await presignVideo(app, key, length);
  return `PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\ncontent-type: video/mp4\r\ncontent-length: ${length}\r\n\r\n`;
}

const incomingLeft = async (storage: LocalDiskStorage) =>
  readdir(join(storage.options.dir, ".incoming")).catch(() => [] as string[]);

describe("audit5: freed chunks over real HTTP", () => {
  test("odd and large raw bodies, head and first body bytes in one write, are stored byte for byte", async ({
    db,
  }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const sizes = [1, 4095, 65535, 65536, 65537, MiB - 1, MiB + 1, 4 * MiB + 13, 33 * MiB + 5];
      for (const size of sizes) {
        const bytes = random(size);
        const conn = new Conn(server);
        await conn.ready();
        // The head and the whole body (or its first part) leave in one write.
        const first = Math.min(size, 1000);
        await conn.write(Buffer.concat([Buffer.from(rawHead(key, size)), bytes.subarray(0, first)]));
        for (let at = first; at < size; at += 3 * 65536 + 7) {
          await conn.write(bytes.subarray(at, Math.min(size, at + 3 * 65536 + 7)));
        }
        expect(await stored(storage, await conn.next()), `size ${size}`).toBe(sha(bytes));
        conn.end();
      }
      expect(freed.count()).toBeGreaterThan(33 * 16);
    } finally {
      await server.close();
    }
  });

  test("keep-alive: a second upload on the connection after a large one, and pipelined uploads, are exact", async ({
    db,
  }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db, { now: new Date().toISOString() });
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const a = random(24 * MiB + 3);
      const b = random(9 * MiB + 1);
      const c = random(5 * MiB + 77);
      const d = random(300_001);
      const putHead = await presignedHead(app, key, c.length);
      const conn = new Conn(server);
      await conn.ready();
      await conn.write(rawHead(key, a.length));
      await conn.write(a);
      expect(await stored(storage, await conn.next())).toBe(sha(a));
      // Same connection: a raw upload, then a presigned PUT and another raw upload pipelined in one write.
      await conn.write(Buffer.concat([Buffer.from(rawHead(key, b.length)), b]));
      expect(await stored(storage, await conn.next())).toBe(sha(b));
      await conn.write(Buffer.concat([Buffer.from(putHead), c, Buffer.from(rawHead(key, d.length)), d]));
      const put = await conn.next();
      expect(put.status, put.body).toBe(200);
      const url = new URL(`http://x${putHead.split(" ")[1]}`);
      expect(sha(await readFile(join(storage.options.dir, url.pathname.split("/").at(-1) as string)))).toBe(
        sha(c),
      );
      expect(await stored(storage, await conn.next())).toBe(sha(d));
      conn.end();
      expect(freed.count()).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  test("Expect: 100-continue, then the body", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const bytes = random(6 * MiB + 11);
      const conn = new Conn(server);
      await conn.ready();
      await conn.write(rawHead(key, bytes.length, "Expect: 100-continue\r\n"));
      expect((await conn.next()).status).toBe(100);
      await conn.write(bytes);
      expect(await stored(storage, await conn.next())).toBe(sha(bytes));
      conn.end();
    } finally {
      await server.close();
    }
  });

  test("a client that sends more than Content-Length: whatever is stored is the declared bytes; the server stays well", async ({
    db,
  }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      for (const extra of [1000, 3 * 65536 + 1]) {
        const bytes = random(3 * MiB + 9);
        const declared = bytes.length - extra;
        const conn = new Conn(server);
        await conn.ready();
        await conn.write(rawHead(key, declared));
        await conn.write(bytes);
        // Node answers the stray bytes (a malformed next request) with 400 and closes the connection.
        const answer = await conn.next().catch((error: Error) => ({ status: 0, body: error.message }));
        expect([0, 200, 400]).toContain(answer.status);
        conn.end();
        await sleep(300);
        const files = (await readdir(storage.options.dir)).filter((n) => n.endsWith(".mp4"));
        for (const file of files) {
          expect(sha(await readFile(join(storage.options.dir, file)))).toBe(sha(bytes.subarray(0, declared)));
        }
        expect(await incomingLeft(storage)).toEqual([]);
        for (const file of files) await storage.delete(file);
      }
      // The server is still well: another upload is exact.
      const again = random(2 * MiB + 1);
      const next = new Conn(server);
      await next.ready();
      await next.write(Buffer.concat([Buffer.from(rawHead(key, again.length)), again]));
      expect(await stored(storage, await next.next())).toBe(sha(again));
      next.end();
    } finally {
      await server.close();
    }
  });

  test("clients that abort mid-body (raw and presigned) leave nothing, and the next upload is exact", async ({
    db,
  }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db, { now: new Date().toISOString() });
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      for (const sent of [1, 65536, MiB + 3, 6 * MiB + 1]) {
        for (const head of [rawHead(key, 16 * MiB), await presignedHead(app, key, 16 * MiB)]) {
          const conn = new Conn(server);
          await conn.ready();
          await conn.write(Buffer.concat([Buffer.from(head), random(sent)]));
          await sleep(50);
          conn.end();
        }
      }
      await sleep(500);
      expect(await incomingLeft(storage)).toEqual([]);
      const bytes = random(7 * MiB + 5);
      const conn = new Conn(server);
      await conn.ready();
      await conn.write(Buffer.concat([Buffer.from(rawHead(key, bytes.length)), bytes]));
      expect(await stored(storage, await conn.next())).toBe(sha(bytes));
      conn.end();
    } finally {
      await server.close();
    }
  });
});

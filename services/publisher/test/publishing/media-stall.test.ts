/**
 * A media host that trickles (a byte at a time) must not hold a worker until the total download
 * limit: the guarded fetcher fails it as a stall after one window. A reader that is slow to read a
 * fast host is not a stall.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FetchGuard, guardedFetch, MediaStalled } from "../../src/media/guarded-fetch.ts";
import { MediaError } from "../../src/media/media-error.ts";
import { defaultRetryPolicy, settlementForFailure } from "../../src/publishing/retry-policy.ts";
import { mediaFile } from "../publishing-support.ts";

const WINDOW_MS = 200;
const photo = mediaFile("jpeg", 1024 * 1024, 5);
let http: { url: string; server: Server };
let raw: { url: string; server: TcpServer };
const timers = new Set<NodeJS.Timeout>();

beforeAll(async () => {
  const server = createServer((req, res) => {
    if (req.url === "/trickle.jpg") {
      // Announces 100 kB, then sends a byte every 20 ms.
      res.writeHead(200, { "content-type": "image/jpeg", "content-length": 100_000 });
      let sent = 0;
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        res.write(photo.bytes.subarray(sent, sent + 1));
        sent += 1;
      }, 20);
      timers.add(timer);
      res.on("close", () => clearInterval(timer));
      return;
    }
    if (req.url === "/photo.jpg")
      return void res
        .writeHead(200, { "content-type": "image/jpeg", "content-length": photo.bytes.length })
        .end(photo.bytes);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  http = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };

  // A host whose response head comes a byte every 20 ms (the socket is never idle).
  const tcp = createTcpServer((socket) => {
    const head = Buffer.from("HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nX-Padding: ".padEnd(2000, "x"));
    let sent = 0;
    const timer = setInterval(() => {
      if (socket.destroyed) return clearInterval(timer);
      socket.write(head.subarray(sent, sent + 1));
      sent += 1;
    }, 20);
    timers.add(timer);
    socket.on("close", () => clearInterval(timer));
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
  raw = { url: `http://127.0.0.1:${(tcp.address() as AddressInfo).port}`, server: tcp };
});
afterAll(async () => {
  for (const timer of timers) clearInterval(timer);
  http.server.closeAllConnections();
  await new Promise((resolve) => http.server.close(resolve));
  await new Promise((resolve) => raw.server.close(resolve));
});

const guard = (): FetchGuard => ({
  trustedOrigins: [http.url, raw.url],
  maxBytes: 512 * 1024 * 1024,
  connectTimeoutMs: 2_000,
  // Far beyond the test's own timeout: only the stall window can end these fetches in time.
  totalTimeoutMs: 600_000,
  maxRedirects: 2,
  stallWindowMs: WINDOW_MS,
  minBytesPerWindow: 1024,
});

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe("the guarded fetcher's floor under the transfer rate", () => {
  it("fails a body that trickles as a stall: transient, MEDIA_UNAVAILABLE, saying so", async () => {
    const fetched = await guardedFetch(`${http.url}/trickle.jpg`, guard());
    const error = await readAll(fetched.stream as unknown as Readable).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(MediaStalled);
    expect(error).toMatchObject({ code: "MEDIA_UNAVAILABLE", transient: true });
    expect((error as MediaError).message).toMatch(/stalled/);
  });

  it("fails a response head that trickles as a stall", async () => {
    const error = await guardedFetch(`${raw.url}/slow-head.jpg`, guard()).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(MediaStalled);
    expect((error as MediaError).message).toMatch(/response head/);
  });

  it("does not blame the host for a reader that holds the body back for several windows", async () => {
    const fetched = await guardedFetch(`${http.url}/photo.jpg`, guard());
    await new Promise((resolve) => setTimeout(resolve, 4 * WINDOW_MS));
    const bytes = await readAll(fetched.stream as unknown as Readable);
    expect(bytes.equals(photo.bytes)).toBe(true);
  });
});

describe("a stalled download is retried a bounded number of times", () => {
  const policy = { ...defaultRetryPolicy(), maxAttempts: 8 };
  const stalled = new MediaStalled("The media host sent 3 bytes in 10000 ms: the transfer stalled.");
  it("a first stall is retried, like any transient failure", () => {
    expect(settlementForFailure(stalled, 0, new Date(), policy)).toMatchObject({ kind: "later" });
  });
  it("a second stall fails the target with the reason, long before the usual eight attempts", () => {
    expect(settlementForFailure(stalled, 1, new Date(), policy)).toEqual({
      kind: "failed",
      error: expect.stringMatching(/^MEDIA_UNAVAILABLE: .*stalled.*gave up after 2 attempts/),
    });
  });
  it("other transient media failures keep the usual number of attempts", () => {
    const unavailable = new MediaError("MEDIA_UNAVAILABLE", "The media host answered 503.", true);
    expect(settlementForFailure(unavailable, 1, new Date(), policy)).toMatchObject({ kind: "later" });
  });
});

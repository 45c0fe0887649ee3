/**
 * Audit: the guarded media fetcher let raw errors through. A malformed redirect (`Location:
 * http://[::1`) threw a TypeError (a 500 when a post was made, an INTERNAL failure retried in the
 * workers); a body reset part-way, and the total-time limit reached part-way, came out as a bare
 * `Error: aborted`. Now a bad redirect is `MEDIA_URL_REJECTED`, a broken body a transient
 * `MEDIA_UNAVAILABLE`, and the total-time limit a stall (`MediaStalled`, with a stall's cap of
 * attempts); a post that names such media is a 400 naming the field, never a 500.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Readable } from "node:stream";
import { json, test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FetchGuard, guardedFetch, guardedRead, MediaStalled } from "../../src/media/guarded-fetch.ts";
import { MediaError } from "../../src/media/media-error.ts";
import { createRemoteImporter } from "../../src/media/remote-import.ts";
import { defaultRetryPolicy, settlementForFailure } from "../../src/publishing/retry-policy.ts";
import { mediaFile } from "../publishing-support.ts";
import { call, publisherApp, seedAccount, seedConnection, testStorage } from "../support.ts";

const photo = mediaFile("jpeg", 400_000, 9);
/** 70 KiB every 100 ms: above the floor of 64 KiB a 300 ms window, so never a stall. */
const STEADY_CHUNK = 70 * 1024;
const WINDOW_MS = 300;
const TOTAL_MS = 1_000;

let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/bad-location.jpg") return void res.writeHead(302, { location: "http://[::1" }).end();
    const resetAfter = { "/reset-early.jpg": 100, "/reset-late.jpg": 200_000 }[req.url ?? ""];
    if (resetAfter !== undefined) {
      res.writeHead(200, { "content-type": "image/jpeg", "content-length": photo.bytes.length });
      res.write(photo.bytes.subarray(0, resetAfter), () => res.socket?.resetAndDestroy());
      return;
    }
    if (req.url === "/steady.jpg") {
      // Far larger than the total limit lets through at this rate.
      res.writeHead(200, { "content-type": "image/jpeg", "content-length": 50_000_000 });
      res.write(photo.bytes.subarray(0, STEADY_CHUNK));
      const timer = setInterval(() => res.write(Buffer.alloc(STEADY_CHUNK, 1)), 100);
      res.on("close", () => clearInterval(timer));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const guard = (): FetchGuard => ({
  trustedOrigins: [origin],
  maxBytes: 512 * 1024 * 1024,
  connectTimeoutMs: WINDOW_MS,
  totalTimeoutMs: TOTAL_MS,
  maxRedirects: 3,
});

/** The error a whole fetch (head and body) of `path` ends with. */
async function fetchError(path: string): Promise<unknown> {
  try {
    const fetched = await guardedFetch(`${origin}${path}`, guard());
    for await (const _chunk of fetched.stream as Readable) {
      // read to the end
    }
  } catch (error) {
    return error;
  }
  throw new Error(`${path} was fetched whole`);
}

describe("guardedFetch wraps what goes wrong", () => {
  it("a malformed Location is MEDIA_URL_REJECTED, for media and for a page read alike", async () => {
    const error = await fetchError("/bad-location.jpg");
    expect(error).toBeInstanceOf(MediaError);
    expect(error).toMatchObject({ code: "MEDIA_URL_REJECTED", transient: false });
    await expect(
      guardedRead(`${origin}/bad-location.jpg`, { ...guard(), accept: "text/html" }),
    ).rejects.toMatchObject({ code: "MEDIA_URL_REJECTED" });
  });

  it("a body reset part-way is a transient MEDIA_UNAVAILABLE", async () => {
    for (const path of ["/reset-early.jpg", "/reset-late.jpg"]) {
      const error = await fetchError(path);
      expect(error, path).toBeInstanceOf(MediaError);
      expect(error, path).toMatchObject({ code: "MEDIA_UNAVAILABLE", transient: true });
    }
  });

  it("the total-time limit reached part-way is a stall, given up after the stall cap", async () => {
    const error = await fetchError("/steady.jpg");
    expect(error).toBeInstanceOf(MediaStalled);
    expect(error).toMatchObject({ code: "MEDIA_UNAVAILABLE", transient: true });
    const policy = defaultRetryPolicy();
    expect(settlementForFailure(error, 0, new Date(), policy).kind).toBe("later");
    expect(settlementForFailure(error, policy.maxStalledAttempts - 1, new Date(), policy)).toMatchObject({
      kind: "failed",
      error: expect.stringMatching(/^MEDIA_UNAVAILABLE: .*\(gave up after 2 attempts\)$/),
    });
  });
});

describe("a post naming such media, imported when it is made", () => {
  for (const [path, reason] of [
    ["/bad-location.jpg", "MEDIA_URL_REJECTED"],
    ["/reset-early.jpg", "MEDIA_UNAVAILABLE"],
    ["/reset-late.jpg", "MEDIA_UNAVAILABLE"],
    ["/steady.jpg", "MEDIA_UNAVAILABLE"],
  ] as const) {
    test(`${path}: 400 VALIDATION_FAILED naming the field, reason ${reason}, never a 500`, async ({ db }) => {
      const { accountId, key } = await seedAccount(db);
      const bluesky = await seedConnection(db, accountId, "bluesky");
      const storage = testStorage();
      const importRemoteMedia = createRemoteImporter(storage, guard());
      const { app } = publisherApp(db, { storage, importRemoteMedia });
      const res = await call(app, "POST", "/api/v1/publish", key, {
        text: "imported",
        mediaUrls: [`${origin}${path}`],
        connectionIds: [bluesky],
      });
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({
        error: "VALIDATION_FAILED",
        issues: [{ path: "mediaUrls.0" }],
        reason,
      });
    });
  }
});

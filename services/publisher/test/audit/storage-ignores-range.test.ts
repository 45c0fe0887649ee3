/**
 * Audit 3 of 82e8f5d (a range read from S3 must come back as exactly that range).
 *
 * 1. GET /media/{path} learns an object's size and type by a one-byte range read (media_get.ts). On a
 *    store that ignores `Range` that probe is now refused, so every GET of the object fails, also
 *    the whole-object GETs (no Range header) that such a store answers correctly and that the route
 *    answered correctly before 82e8f5d: platforms pulling the video get a 500.
 * 2. The contract (contracts/storage.ts) now says a range read's stream "holds exactly that range
 *    (a store that answers with other bytes is refused with RangeNotServedError)". S3Storage refuses
 *    a range reaching past the end (S3 answers the clipped range); LocalDiskStorage hands back a short
 *    (or empty) stream without a word, the very "other bytes" the contract refuses.
 * Held (these pass): a refused body is released (no socket or handle left per refusal).
 */
import { Readable } from "node:stream";
import { test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { RangeNotServedError } from "../../src/storage/errors.ts";
import { type FakeS3, startFakeS3 } from "../fake-s3.ts";
import { publisherApp, testStorage } from "../support.ts";

let s3: FakeS3;
beforeAll(async () => {
  s3 = await startFakeS3({ honourRange: true });
});
afterAll(() => s3.close());

const bytesOf = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** An MP4-looking body (ftyp box first) of `size` bytes. */
const video = (size: number) => {
  const body = Buffer.alloc(size, 7);
  body.write("\0\0\0\x18ftypisom", 0, "latin1");
  return body;
};

describe("audit 3: S3 range reads", () => {
  test("GET /media without a Range, on a store that ignores Range, is still the whole object (200)", async ({
    db,
  }) => {
    const storage = s3.storage();
    const body = video(50_000);
    await storage.write("med_audit3_whole.mp4", Readable.from([body]), {
      contentType: "video/mp4",
      expectedBytes: body.length,
    });
    const { app } = publisherApp(db, { storage });
    s3.honourRange = true;
    const honoured = await app.request("/media/med_audit3_whole.mp4");
    expect(honoured.status).toBe(200);
    expect(Buffer.from(await honoured.arrayBuffer()).equals(body)).toBe(true);
    s3.honourRange = false;
    try {
      // The store answers this request exactly as S3 would: 200 and the whole object.
      const whole = await app.request("/media/med_audit3_whole.mp4");
      const received = Buffer.from(await whole.arrayBuffer());
      expect({ status: whole.status, bytes: received.length }).toEqual({ status: 200, bytes: body.length });
    } finally {
      s3.honourRange = true;
    }
  });

  test("held: 80 refused range reads leave no sockets or handles behind, and reads still work", async () => {
    const storage = s3.storage();
    const body = video(2_000_000);
    await storage.write("med_audit3_refused.mp4", Readable.from([body]), {
      contentType: "video/mp4",
      expectedBytes: body.length,
    });
    const sockets = () => process.getActiveResourcesInfo().filter((kind) => kind === "TCPSocketWrap").length;
    const before = sockets();
    s3.honourRange = false;
    try {
      for (let n = 0; n < 80; n += 1) {
        await expect(
          storage.read("med_audit3_refused.mp4", { start: 1000, end: 1999 }),
        ).rejects.toBeInstanceOf(RangeNotServedError);
      }
    } finally {
      s3.honourRange = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sockets() - before).toBeLessThanOrEqual(2);
    const read = await storage.read("med_audit3_refused.mp4", { start: 1000, end: 1999 });
    expect((await bytesOf(read.stream)).equals(body.subarray(1000, 2000))).toBe(true);
  });
});

describe("audit 3: the range contract on local disk", () => {
  test("a range reaching past the end: S3Storage refuses it, and local disk must not hand back other bytes", async () => {
    const body = video(10_000);
    const s3Storage = s3.storage();
    const disk = testStorage();
    for (const storage of [s3Storage, disk]) {
      await storage.write("med_audit3_end.mp4", Readable.from([body]), {
        contentType: "video/mp4",
        expectedBytes: body.length,
      });
    }
    const outcome = async (
      storage: typeof disk | typeof s3Storage,
      range: { start: number; end: number },
    ) => {
      try {
        const read = await storage.read("med_audit3_end.mp4", range);
        const got = await bytesOf(read.stream);
        return got.length === range.end - range.start + 1 ? "exactly the range" : `${got.length} bytes`;
      } catch (error) {
        return error instanceof RangeNotServedError ? "RangeNotServedError" : String(error);
      }
    };
    const pastTheEnd = { start: 9_990, end: 10_009 };
    const atTheEnd = { start: 10_000, end: 10_099 };
    expect(await outcome(s3Storage, pastTheEnd)).toBe("RangeNotServedError");
    expect({ pastTheEnd: await outcome(disk, pastTheEnd), atTheEnd: await outcome(disk, atTheEnd) }).toEqual({
      pastTheEnd: "RangeNotServedError",
      atTheEnd: "RangeNotServedError",
    });
  });
});

import { randomBytes } from "node:crypto";
import { PassThrough, Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { IncompleteBodyError, RangeNotServedError } from "../../src/storage/errors.ts";
import { type FakeS3, startFakeS3 } from "../fake-s3.ts";

let s3: FakeS3;
beforeAll(async () => {
  s3 = await startFakeS3({ honourRange: true });
});
afterAll(() => s3.close());

const storage = () => s3.storage();

describe("media in an S3-compatible store", () => {
  test("a body that ends short of its length is refused as incomplete, and nothing is stored", async () => {
    const body = Readable.from([randomBytes(300)]);
    await expect(
      storage().write("med_s3_short.mp4", body, { contentType: "video/mp4", expectedBytes: 500 }),
    ).rejects.toBeInstanceOf(IncompleteBodyError);
    expect(s3.objects.has("/media/med_s3_short.mp4")).toBe(false);
  });

  test("a body that fails midway (the uploader went away) stores nothing", async () => {
    const body = new PassThrough();
    body.write(randomBytes(1000));
    setTimeout(() => body.destroy(new Error("client gone")), 20);
    await expect(
      storage().write("med_s3_failed.mp4", body, { contentType: "video/mp4", expectedBytes: 5000 }),
    ).rejects.toBeInstanceOf(IncompleteBodyError);
    expect(s3.objects.has("/media/med_s3_failed.mp4")).toBe(false);
  });

  test("a body that is already arriving when the write starts reaches S3 whole", async () => {
    const chunk = 16 * 1024;
    const bytes = randomBytes(64 * chunk + 17);
    const body = new PassThrough();
    const writing = storage().write("med_s3_first_chunks.mp4", body, {
      contentType: "video/mp4",
      expectedBytes: bytes.length,
    });
    // Bytes keep arriving, as from an uploader's socket, while the SDK is still connecting: a
    // listener that starts the body flowing before the SDK reads it loses those.
    for (let offset = 0; offset < bytes.length; offset += chunk) {
      body.write(bytes.subarray(offset, offset + chunk));
      await new Promise((resolve) => setImmediate(resolve));
    }
    body.end();
    await writing;
    expect(s3.objects.get("/media/med_s3_first_chunks.mp4")?.body.equals(bytes)).toBe(true);
    expect(await storage().exists("med_s3_first_chunks.mp4")).toBe(true);
  });

  test("a body of unknown length is spooled and stored whole", async () => {
    const bytes = randomBytes(200_000);
    await storage().write(
      "med_s3_spooled.jpg",
      Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]),
      {
        contentType: "image/jpeg",
      },
    );
    expect(s3.objects.get("/media/med_s3_spooled.jpg")?.body.equals(bytes)).toBe(true);
  });

  test("a body longer than declared is refused as incomplete, and nothing is stored", async () => {
    const body = Readable.from([randomBytes(1000)]);
    await expect(
      storage().write("med_s3_long.mp4", body, { contentType: "video/mp4", expectedBytes: 500 }),
    ).rejects.toBeInstanceOf(IncompleteBodyError);
    expect(s3.objects.has("/media/med_s3_long.mp4")).toBe(false);
  });

  test("a range read holds exactly that range, with the object's whole size", async () => {
    s3.honourRange = true;
    const bytes = randomBytes(10_000);
    await storage().write("med_s3_range.mp4", Readable.from([bytes]), {
      contentType: "video/mp4",
      expectedBytes: bytes.length,
    });
    const read = await storage().read("med_s3_range.mp4", { start: 4096, end: 8191 });
    const chunks: Buffer[] = [];
    for await (const chunk of read.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(bytes.subarray(4096, 8192))).toBe(true);
    expect(read.size).toBe(10_000);
  });

  test("a store that ignores Range (200, the whole object) is refused, not passed off as the range", async () => {
    const bytes = randomBytes(10_000);
    await storage().write("med_s3_no_range.mp4", Readable.from([bytes]), {
      contentType: "video/mp4",
      expectedBytes: bytes.length,
    });
    s3.honourRange = false;
    try {
      const reading = storage().read("med_s3_no_range.mp4", { start: 4096, end: 8191 });
      await expect(reading).rejects.toBeInstanceOf(RangeNotServedError);
      await expect(reading).rejects.toThrow(
        "Storage answered a read of med_s3_no_range.mp4 for bytes 4096-8191 with the whole object (10000 bytes).",
      );
    } finally {
      s3.honourRange = true;
    }
  });
});

import { createReadStream } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type StagedMedia, sendRange } from "../../src/media/staged-media.ts";

describe("one upload chunk streamed from staged media", () => {
  let dir: string;
  let media: StagedMedia;
  const opened: Readable[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "publisher-send-range-"));
    const file = join(dir, "video.mp4");
    await writeFile(file, Buffer.from("0123456789abcdef"));
    media = {
      path: "video.mp4",
      size: 16,
      contentType: "video/mp4",
      publicUrl: "http://127.0.0.1/media/video.mp4",
      read: async (range) => {
        const stream = createReadStream(file, range && { start: range.first, end: range.last });
        opened.push(stream);
        return stream;
      },
    };
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  test("the sender reads exactly the range and its answer is returned; the file is closed after", async () => {
    const answer = await sendRange(media, { first: 4, last: 9 }, async (body) => {
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString();
    });
    expect(answer).toBe("456789");
    expect(opened.at(-1)?.destroyed).toBe(true);
  });

  test("a sender that fails before reading a byte leaves no file open", async () => {
    const refused = new Error("connection refused");
    await expect(
      sendRange(media, { first: 0, last: 15 }, async () => {
        throw refused;
      }),
    ).rejects.toBe(refused);
    const stream = opened.at(-1) as Readable;
    expect(stream.destroyed).toBe(true);
    expect(stream.readableEnded).toBe(false);
  });
});

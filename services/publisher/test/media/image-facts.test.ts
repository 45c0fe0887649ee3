import sharp from "sharp";
import { describe, expect, test } from "vitest";
import type { ByteSource } from "../../src/media/probe/byte-source.ts";
import { imageFacts } from "../../src/media/probe/image-facts.ts";

/** A source over a buffer that records the bytes asked of it. */
function bufferSource(bytes: Buffer): ByteSource & { reads: Array<[number, number]> } {
  const reads: Array<[number, number]> = [];
  return {
    size: bytes.length,
    reads,
    async read(start, end) {
      reads.push([start, end]);
      return bytes.subarray(start, Math.min(end, bytes.length - 1) + 1);
    },
  };
}

/** A real JPEG whose frame header (SOF0) is made to say `width` × `height`. */
async function jpegClaiming(width: number, height: number): Promise<Buffer> {
  const bytes = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#123" } })
    .jpeg()
    .toBuffer();
  const sof = bytes.indexOf(Buffer.from([0xff, 0xc0]));
  bytes.writeUInt16BE(height, sof + 5);
  bytes.writeUInt16BE(width, sof + 7);
  return bytes;
}

describe("an image's facts from its header", () => {
  test("a JPEG claiming 65500 × 65500 is described by that size (for the pixel limit), not as unreadable", async () => {
    const facts = await imageFacts(bufferSource(await jpegClaiming(65_500, 65_500)));
    expect(facts).toMatchObject({ format: "jpeg", width: 65_500, height: 65_500 });
  });

  test("an animated GIF says how many frames it has; a still one, one", async () => {
    const frames = await Promise.all(
      ["#f00", "#0f0", "#00f"].map((background) =>
        sharp({ create: { width: 40, height: 30, channels: 3, background } })
          .png()
          .toBuffer(),
      ),
    );
    const animated = await sharp(frames, { join: { animated: true } })
      .gif({ loop: 0 })
      .toBuffer();
    const still = await sharp(frames[0]).gif().toBuffer();
    expect((await imageFacts(bufferSource(animated)))?.pages).toBe(3);
    expect((await imageFacts(bufferSource(still)))?.pages).toBe(1);
  });
});

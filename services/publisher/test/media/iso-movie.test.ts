import { describe, expect, test } from "vitest";
import type { ByteSource } from "../../src/media/probe/byte-source.ts";
import { codecFamily, isoVideoFacts } from "../../src/media/probe/iso-movie.ts";
import { buildMp4 } from "./mp4-fixture.ts";

/** A file in memory read by range, counting the bytes read. */
function counted(bytes: Buffer): ByteSource & { bytesRead: number } {
  const source = {
    size: bytes.length,
    bytesRead: 0,
    async read(start: number, end: number) {
      const slice = bytes.subarray(start, end + 1);
      source.bytesRead += slice.length;
      return Buffer.from(slice);
    },
  };
  return source;
}

describe("reading an MP4 / MOV movie header", () => {
  test("duration, codec, picture size and frame rate of an H.264 MP4", async () => {
    const facts = await isoVideoFacts(
      counted(buildMp4({ durationSec: 75.2, width: 720, height: 1280 })),
      "mp4",
    );
    expect(facts).toMatchObject({
      kind: "video",
      container: "mp4",
      metadataRead: true,
      video: { codec: "h264", codecString: "avc1.64001f", width: 720, height: 1280 },
    });
    expect(facts.durationSec).toBeCloseTo(75.2, 3);
    expect(facts.video?.fps).toBeCloseTo(30, 0);
  });

  test("a movie header after 20 MB of media is found by range reads, without reading the media", async () => {
    const file = buildMp4({ durationSec: 12, codec: "hvc1", moovLast: true, padding: 20 * 1024 * 1024 });
    const source = counted(file);
    const facts = await isoVideoFacts(source, "mp4");
    expect(facts.video?.codec).toBe("h265");
    expect(facts.durationSec).toBeCloseTo(12, 3);
    expect(source.bytesRead).toBeLessThan(1024 * 1024);
  });

  test("an audio-only file has no video; bytes without a movie header are not read as a movie", async () => {
    const audio = await isoVideoFacts(counted(buildMp4({ durationSec: 3, audioOnly: true })), "mp4");
    expect(audio).toMatchObject({ metadataRead: true });
    expect(audio.video).toBeUndefined();
    const junk = Buffer.concat([
      Buffer.from([0, 0, 0, 0x18]),
      Buffer.from("ftypmp42"),
      Buffer.alloc(5000, 7),
    ]);
    expect(await isoVideoFacts(counted(junk), "mp4")).toMatchObject({ metadataRead: false });
  });

  test("codec strings map to their families", () => {
    expect(
      ["avc1.64001f", "hev1.1.6.L93.B0", "vp09.00.10.08", "av01.0.04M.08", "mp4v.20.9", "s263"].map(
        codecFamily,
      ),
    ).toEqual(["h264", "h265", "vp9", "av1", "mpeg4", "s263"]);
  });
});

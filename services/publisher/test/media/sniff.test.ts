import { describe, expect, test } from "vitest";
import { describeOtherMedia, SNIFF_BYTES, sniffMediaType } from "../../src/media/sniff.ts";
import { buildMp4, webmHead } from "./mp4-fixture.ts";

/** The first bytes of an ISO BMFF file of a major brand and compatible brands. */
function ftyp(major: string, ...compatible: string[]): Buffer {
  const brands = [major, ...compatible].map((brand) => Buffer.from(brand, "latin1"));
  const body = Buffer.concat([brands[0] as Buffer, Buffer.alloc(4), ...brands.slice(1)]);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(8 + body.length);
  return Buffer.concat([size, Buffer.from("ftyp"), body, Buffer.alloc(32)]).subarray(0, SNIFF_BYTES);
}

/** An EBML header naming a DocType. */
function ebml(docType: string): Buffer {
  const body = Buffer.concat([
    Buffer.from([0x42, 0x82, 0x80 | docType.length]),
    Buffer.from(docType, "latin1"),
  ]);
  return Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x80 | body.length]), body, Buffer.alloc(16)]);
}

describe("sniffing ISO BMFF and EBML files by brand and DocType", () => {
  test("MP4 and QuickTime videos are still what they were", () => {
    expect(sniffMediaType(buildMp4({ durationSec: 1 }).subarray(0, SNIFF_BYTES))).toBe("video/mp4");
    expect(sniffMediaType(ftyp("mp42", "isom", "avc1"))).toBe("video/mp4");
    expect(sniffMediaType(ftyp("M4V ", "M4A ", "mp42"))).toBe("video/mp4");
    expect(sniffMediaType(ftyp("qt  ", "qt  "))).toBe("video/quicktime");
    expect(sniffMediaType(webmHead().subarray(0, SNIFF_BYTES))).toBe("video/webm");
    expect(sniffMediaType(ebml("webm"))).toBe("video/webm");
  });

  test("HEIC, AVIF, M4A, 3GP and CR3 files are not MP4 videos, and are named for what they are", () => {
    const cases: [Buffer, RegExp][] = [
      [ftyp("heic", "mif1", "heic"), /HEIC image/],
      [ftyp("mif1", "heic"), /HEIF image/],
      [ftyp("avif", "mif1", "avif"), /AVIF image/],
      [ftyp("mif1", "avif", "miaf"), /AVIF image/],
      [ftyp("M4A ", "M4A ", "mp42", "isom"), /audio/],
      [ftyp("3gp4", "3gp4", "isom"), /3GP video/],
      [ftyp("crx ", "crx "), /CR3/],
    ];
    for (const [head, name] of cases) {
      expect(sniffMediaType(head)).toBeUndefined();
      expect(describeOtherMedia(head)).toMatch(name);
    }
  });

  test("a Matroska file, or EBML of no readable DocType, is not WebM", () => {
    expect(sniffMediaType(ebml("matroska"))).toBeUndefined();
    expect(describeOtherMedia(ebml("matroska"))).toMatch(/Matroska/);
    expect(sniffMediaType(Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0, 0, 0, 0]))).toBeUndefined();
    expect(describeOtherMedia(webmHead())).toBeUndefined();
  });
});

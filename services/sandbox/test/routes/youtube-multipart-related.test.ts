import { describe, expect, test } from "vitest";
import {
  MultipartProblem,
  multipartBoundary,
  type PartHeaders,
  readMultipartRelated,
} from "../../src/google/multipart-related.ts";

// The pure reader behind uploadType=multipart (no HTTP): what it hands on, and when.

const B = "frontier";
const body = (media: string) =>
  `--${B}\r\ncontent-type: application/json\r\n\r\n{"a":1}\r\n--${B}\r\ncontent-type: video/mp4\r\n\r\n${media}\r\n--${B}--`;

async function* pieces(text: string | Buffer, size: number) {
  const bytes = Buffer.from(text);
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

async function read(source: AsyncIterable<Buffer>) {
  const seen: { metadata?: [PartHeaders, string]; mediaHeaders?: PartHeaders; media: Buffer[] } = {
    media: [],
  };
  await readMultipartRelated(
    source,
    B,
    {
      metadata: (headers, bytes) => {
        seen.metadata = [headers, bytes.toString()];
      },
      mediaStart: (headers) => {
        seen.mediaHeaders = headers;
      },
      media: (chunk) => seen.media.push(Buffer.from(chunk)),
    },
    { maxMetadataBytes: 1024 },
  );
  return { ...seen, media: Buffer.concat(seen.media).toString("latin1") };
}

describe("the multipart/related reader", () => {
  test("at any piece size it hands on the metadata whole and the media byte for byte", async () => {
    const media = `binary\r\n--${B.slice(0, 5)}\r\n-${"z".repeat(300)}`; // near-boundaries inside the media
    for (const size of [1, 2, 3, 5, 13, 64, 4096]) {
      const seen = await read(pieces(body(media), size));
      expect(seen.metadata).toEqual([{ "content-type": "application/json" }, '{"a":1}']);
      expect(seen.mediaHeaders).toEqual({ "content-type": "video/mp4" });
      expect(seen.media).toBe(media);
    }
  });

  test("the media streams: bytes are handed on before the body has ended", async () => {
    const head = `--${B}\r\ncontent-type: application/json\r\n\r\n{}\r\n--${B}\r\ncontent-type: video/mp4\r\n\r\n`;
    let handedOn = 0;
    let handedOnBeforeEnd = -1;
    async function* slowly() {
      yield Buffer.from(head);
      for (let index = 0; index < 100; index += 1) yield Buffer.alloc(1000, 1);
      handedOnBeforeEnd = handedOn; // what the reader had passed on while the body was still open
      yield Buffer.from(`\r\n--${B}--`);
    }
    await readMultipartRelated(
      slowly(),
      B,
      { metadata: () => {}, mediaStart: () => {}, media: (chunk) => (handedOn += chunk.length) },
      { maxMetadataBytes: 1024 },
    );
    expect(handedOn).toBe(100_000);
    expect(handedOnBeforeEnd).toBeGreaterThan(99_000);
  });

  test("a refusal is thrown only once the whole body has been read", async () => {
    let pulled = 0;
    async function* counted() {
      for await (const piece of pieces(`--${B}--${"x".repeat(5000)}`, 100)) {
        pulled += 1;
        yield piece;
      }
    }
    await expect(read(counted())).rejects.toThrow(MultipartProblem);
    expect(pulled).toBe(51);
  });

  test.for<[string, string]>([
    ["no parts", `--${B}--`],
    ["metadata only", `--${B}\r\ncontent-type: application/json\r\n\r\n{}\r\n--${B}--`],
    ["three parts", `${body("m").slice(0, -2)}\r\ncontent-type: video/mp4\r\n\r\nx\r\n--${B}--`],
    ["no closing boundary", body("m").slice(0, -`--${B}--`.length)],
    ["a malformed header line", `--${B}\r\ncontent-type application/json\r\n\r\n{}\r\n--${B}--`],
    ["metadata over the limit", body("m").replace('{"a":1}', `"${"x".repeat(2000)}"`)],
  ])("%s is refused", async ([, text]) => {
    await expect(read(pieces(text, 7))).rejects.toThrow(MultipartProblem);
  });

  test("the boundary of a multipart/related type, quoted or not; nothing for other types", () => {
    expect(multipartBoundary("multipart/related; boundary=abc")).toBe("abc");
    expect(multipartBoundary('Multipart/Related; type="application/json"; boundary="a b:c"')).toBe("a b:c");
    expect(multipartBoundary("multipart/related")).toBeUndefined();
    expect(multipartBoundary("multipart/mixed; boundary=abc")).toBeUndefined();
    expect(multipartBoundary(`multipart/related; boundary=${"x".repeat(71)}`)).toBeUndefined();
  });
});

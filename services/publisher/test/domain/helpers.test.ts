import { describe, expect, test } from "vitest";
import { parseRange } from "../../src/domain/byte-range.ts";
import { decodeCursor, encodeCursor } from "../../src/domain/cursor.ts";
import { describeUpload, mediaTypeOfUrl } from "../../src/domain/media-types.ts";
import { parseScopes } from "../../src/domain/scopes.ts";

describe("byte ranges", () => {
  test("a closed, an open and a suffix range are clipped to the object", () => {
    expect(parseRange("bytes=0-9", 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange("bytes=90-", 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange("bytes=-10", 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange("bytes=50-500", 100)).toEqual({ start: 50, end: 99 });
  });

  test("a range starting past the end is unsatisfiable", () => {
    expect(parseRange("bytes=100-", 100)).toBe("unsatisfiable");
    expect(parseRange("bytes=-0", 100)).toBe("unsatisfiable");
  });

  test("no header, several ranges or another unit serve the whole object", () => {
    expect(parseRange(undefined, 100)).toBe("full");
    expect(parseRange("bytes=0-1,5-6", 100)).toBe("full");
    expect(parseRange("items=0-1", 100)).toBe("full");
  });
});

describe("cursors", () => {
  test("a cursor decodes to the position it encodes", () => {
    const position = { createdMicros: 1_781_500_000_123_456, id: "post_abc" };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
  });

  test("anything not issued by the service decodes to nothing", () => {
    for (const bad of ["nope", "!!", Buffer.from('["x","y"]').toString("base64url"), "e30"]) {
      expect(decodeCursor(bad)).toBeUndefined();
    }
  });
});

describe("media types", () => {
  test("URL extensions type media, case-insensitively, ignoring the query", () => {
    expect(mediaTypeOfUrl("https://x.test/a.MP4?sig=1")).toBe("VIDEO");
    expect(mediaTypeOfUrl("https://x.test/a.webp")).toBe("IMAGE");
    expect(mediaTypeOfUrl("https://x.test/a")).toBeUndefined();
    expect(mediaTypeOfUrl("not a url")).toBeUndefined();
  });

  test("an upload is described by its declared media type, else by its file name", () => {
    expect(describeUpload("clip.mov", undefined)).toEqual({
      contentType: "video/quicktime",
      extension: "mov",
    });
    expect(describeUpload("clip.mp4", "video/mp4; codecs=avc1")).toEqual({
      contentType: "video/mp4",
      extension: "mp4",
    });
    expect(describeUpload(undefined, "image/png")).toEqual({ contentType: "image/png", extension: "png" });
    expect(describeUpload("notes.txt", "text/plain")).toBeUndefined();
    expect(describeUpload("clip.mp4", "application/octet-stream")).toEqual({
      contentType: "video/mp4",
      extension: "mp4",
    });
  });
});

describe("scopes", () => {
  test("no list means every scope; a list is kept in canonical order; unknown scopes are refused", () => {
    expect(parseScopes(undefined)).toEqual(["posts:read", "posts:write", "media:write"]);
    expect(parseScopes("media:write, posts:read")).toEqual(["posts:read", "media:write"]);
    expect(() => parseScopes("posts:delete")).toThrow(/posts:delete/);
    expect(() => parseScopes(" , ")).toThrow(/at least one/);
  });
});

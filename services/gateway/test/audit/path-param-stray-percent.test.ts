import { describe, expect, it } from "vitest";
import { renderPath, unsafeSegmentReason } from "../../src/domain/path-template.ts";

describe("audit: a percent-encoded separator next to a stray '%'", () => {
  // src/domain/path-template.ts decodedForms(): decodeURIComponent of the whole value throws on a
  // lone '%' and the loop stops, so "%2F%" (an encoded slash) and "%252F%25" (encoded twice) are
  // accepted, while README promises "no /, \, ?, # … plain or percent-encoded up to three times".
  // A lenient decoder (Hono's tryDecodeURIComponent falls back to decoding each valid %XX) turns
  // the second into "/%".
  for (const value of ["%2F%", "%252F%25", "..%2f%", "%23%", "%3F%zz"]) {
    it(`refuses ${JSON.stringify(value)}`, () => {
      expect(unsafeSegmentReason(value)).toBeDefined();
      expect(renderPath("/api/v1/posts/{id}", { id: value }).ok).toBe(false);
    });
  }
});

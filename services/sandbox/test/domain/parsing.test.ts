import { describe, expect, test } from "vitest";
import { parseContentRange } from "../../src/kit/content-range.ts";
import { isRegisteredRedirectUri } from "../../src/kit/redirect-uris.ts";
import { isVerifiedUrl } from "../../src/tiktok/media-pull.ts";

describe("Content-Range", () => {
  test("a range, a range of unknown total and a status query parse", () => {
    expect(parseContentRange("bytes 0-9/100")).toEqual({ kind: "bytes", first: 0, last: 9, total: 100 });
    expect(parseContentRange("bytes 10-19/*")).toEqual({ kind: "bytes", first: 10, last: 19, total: null });
    expect(parseContentRange("bytes */100")).toEqual({ kind: "probe", total: 100 });
  });

  test("a backwards range, one past the total or another unit is refused", () => {
    expect(parseContentRange("bytes 9-0/100")).toBeUndefined();
    expect(parseContentRange("bytes 0-100/100")).toBeUndefined();
    expect(parseContentRange("items 0-9/100")).toBeUndefined();
  });
});

describe("redirect URIs and verified URL prefixes", () => {
  const registered = ["http://127.0.0.1:*/oauth/youtube/callback", "https://app.example/cb"];

  test("a loopback wildcard port matches any port, the path exactly", () => {
    expect(isRegisteredRedirectUri("http://127.0.0.1:51234/oauth/youtube/callback", registered)).toBe(true);
    expect(isRegisteredRedirectUri("http://127.0.0.1:51234/oauth/youtube/callback/x", registered)).toBe(
      false,
    );
    expect(
      isRegisteredRedirectUri("http://127.0.0.1.evil.example:80/oauth/youtube/callback", registered),
    ).toBe(false);
  });

  test("other URIs match exactly, and never with a fragment", () => {
    expect(isRegisteredRedirectUri("https://app.example/cb", registered)).toBe(true);
    expect(isRegisteredRedirectUri("https://app.example/cb#x", registered)).toBe(false);
  });

  test("a verified prefix covers its origin and path only", () => {
    const prefixes = ["http://127.0.0.1:3002/media/"];
    expect(isVerifiedUrl("http://127.0.0.1:3002/media/a.mp4", prefixes)).toBe(true);
    expect(isVerifiedUrl("http://127.0.0.1:3002/admin/a.mp4", prefixes)).toBe(false);
    expect(isVerifiedUrl("http://127.0.0.1:3003/media/a.mp4", prefixes)).toBe(false);
    expect(isVerifiedUrl("file:///etc/passwd", prefixes)).toBe(false);
  });
});

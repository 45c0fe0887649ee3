import { describe, expect, test } from "vitest";
import { renderPath, templateParameters, unsafeSegmentReason } from "../../src/domain/path-template.ts";

describe("path templates", () => {
  test("a template names its parameters in order", () => {
    expect(templateParameters("/api/v1/posts/{id}")).toEqual(["id"]);
    expect(templateParameters("/a/{first}/b/{second_2}")).toEqual(["first", "second_2"]);
    expect(templateParameters("/api/v1/connections")).toEqual([]);
  });

  test("a value is substituted percent-encoded as one segment", () => {
    expect(renderPath("/api/v1/posts/{id}", { id: "post_01" })).toEqual({
      ok: true,
      path: "/api/v1/posts/post_01",
    });
    expect(renderPath("/p/{id}", { id: "a b+é:@" })).toEqual({ ok: true, path: "/p/a%20b%2B%C3%A9%3A%40" });
    expect(renderPath("/p/{id}", { id: "100%" })).toEqual({ ok: true, path: "/p/100%25" });
    expect(renderPath("/p/{id}", { id: "..." })).toEqual({ ok: true, path: "/p/..." });
  });

  test("a missing value is an issue named after the parameter", () => {
    expect(renderPath("/p/{id}", {}, "input.pathParams")).toEqual({
      ok: false,
      issues: [{ path: "input.pathParams.id", message: "is required" }],
    });
  });

  test("values that could leave their segment are refused, plain or percent-encoded once or twice", () => {
    for (const value of [
      "",
      ".",
      "..",
      "a/b",
      "a\\b",
      "a?b",
      "a#b",
      "%2e%2E",
      "%2F",
      "%2f..",
      "%5C",
      "%3F",
      "%23",
      "%252F",
      "%25252F",
      "a\u0000",
      "\t",
      "a\u007f",
      "%0A",
    ]) {
      expect(unsafeSegmentReason(value), JSON.stringify(value)).toBeDefined();
      expect(renderPath("/p/{id}", { id: value }).ok, JSON.stringify(value)).toBe(false);
    }
  });

  test("ordinary ids, and text that is not valid percent-encoding, are accepted", () => {
    for (const value of ["post_01", "abc-DEF.123", "%zz", "a%", "ÿ", "émoji🙂"]) {
      expect(unsafeSegmentReason(value), value).toBeUndefined();
    }
  });
});

import { describe, expect, test } from "vitest";
import { runFingerprint } from "../../src/domain/fingerprint.ts";
import { outputJson, SCRUBBED, scrubSecret } from "../../src/domain/output.ts";

/** The run output of an upstream body, as the value a caller reads. */
const decodeOutput = (body: Uint8Array, contentType: string | undefined, secret?: string) =>
  outputJson(body, contentType, secret).value();

const bytes = (text: string) => new TextEncoder().encode(text);

describe("run output", () => {
  test("a JSON answer is parsed, other answers stay text, an empty one is null", () => {
    expect(decodeOutput(bytes('{"a":1}'), "application/json; charset=utf-8")).toEqual({ a: 1 });
    expect(decodeOutput(bytes('{"a":1}'), "application/problem+json")).toEqual({ a: 1 });
    expect(decodeOutput(bytes("<html>"), "text/html")).toBe("<html>");
    expect(decodeOutput(bytes("{broken"), "application/json")).toBe("{broken");
    expect(decodeOutput(bytes('{"a":1}'), undefined)).toBe('{"a":1}');
    expect(decodeOutput(new Uint8Array(), "application/json")).toBeNull();
  });

  test("the caller's key is scrubbed from an answer that echoes it, in every form", () => {
    const key = 'k"ey/+1';
    const body = JSON.stringify({ message: `bad key ${key}`, url: `?key=${encodeURIComponent(key)}` });
    const output = decodeOutput(bytes(body), "application/json", key) as Record<string, string>;
    expect(JSON.stringify(output)).not.toContain("ey/+1");
    expect(output.url).toBe(`?key=${SCRUBBED}`);
    expect(scrubSecret("abc", undefined)).toBe("abc");
    expect(scrubSecret("xSECRETx", "SECRET")).toBe(`x${SCRUBBED}x`);
  });
});

describe("run fingerprints", () => {
  test("equal requests match whatever their key order or method case; different ones do not", () => {
    const a = runFingerprint({
      provider: "p",
      endpoint: "/e",
      method: "get",
      input: { queryParams: { a: 1, b: 2 } },
    });
    const b = runFingerprint({
      provider: "p",
      endpoint: "/e",
      method: "GET",
      input: { queryParams: { b: 2, a: 1 } },
    });
    const c = runFingerprint({
      provider: "p",
      endpoint: "/e",
      method: "GET",
      input: { queryParams: { a: 1, b: 3 } },
    });
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });
});

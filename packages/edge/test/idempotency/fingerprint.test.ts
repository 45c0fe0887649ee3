import { describe, expect, it } from "vitest";
import { canonicalJson, requestFingerprint } from "../../src/idempotency/fingerprint.ts";

describe("request fingerprints", () => {
  it("print equal values the same whatever their key order, leaving undefined members out", () => {
    expect(canonicalJson({ b: [1, { d: null, c: "x" }], a: true, skip: undefined })).toBe(
      '{"a":true,"b":[1,{"c":"x","d":null}]}',
    );
    expect(canonicalJson([undefined, "é", 1.5, {}])).toBe('[null,"é",1.5,{}]');
    expect(canonicalJson("plain")).toBe('"plain"');
    expect(requestFingerprint({ a: 1, b: 2 })).toBe(requestFingerprint({ b: 2, a: 1 }));
    expect(requestFingerprint({ a: 1 })).not.toBe(requestFingerprint({ a: "1" }));
    expect(requestFingerprint({ a: [1, 2] })).not.toBe(requestFingerprint({ a: [2, 1] }));
  });

  it("print what JSON.stringify prints for JSON values, keys sorted", () => {
    const value = { z: [{ y: "\u0000\ud800", x: -0 }], a: 1e21, m: "line\nbreak" };
    const sorted = { a: value.a, m: value.m, z: [{ x: -0, y: value.z[0]?.y }] };
    expect(canonicalJson(value)).toBe(JSON.stringify(sorted));
  });

  it("take nesting deeper than any call stack without recursion (100,000 levels)", () => {
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level += 1) deep = level % 2 === 0 ? { a: deep } : [deep];
    const text = canonicalJson(deep);
    expect(text.length).toBe(1 + 50_000 * ('{"a":'.length + 1) + 50_000 * 2);
    expect(requestFingerprint(deep)).toMatch(/^[0-9a-f]{64}$/);
  });
});

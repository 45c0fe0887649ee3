import { describe, expect, test } from "vitest";
import { outputJson, SCRUBBED } from "../../src/domain/output.ts";
import { upstreamRetryAfter } from "../../src/domain/retry-after.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const escapedAll = (text: string) =>
  [...text].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");

const KEY = "k/ey+1";

/** Attack: the caller's key written with JSON escapes other than JSON.stringify's passed the scrub. */
describe("the scrub of the caller's key from a JSON answer", () => {
  test("finds the key in any JSON spelling, in values and keys, and keeps every other byte", () => {
    const spellings = [
      "k\\/ey+1",
      escapedAll(KEY),
      `\\u006b${KEY.slice(1)}`,
      `k\\/ey\\u002b1`,
      encodeURIComponent(KEY),
    ];
    for (const spelling of spellings) {
      const body = `{ "n": 1e400, "a":"x ${spelling} y", "${spelling}": [1.50, "\\u00e9", "${spelling}"] }`;
      const output = outputJson(bytes(body), "application/json", KEY);
      expect(JSON.stringify(output.value()), spelling).not.toContain(KEY);
      expect(output.text, spelling).toBe(
        `{ "n": 1e400, "a":"x ${SCRUBBED} y", "${SCRUBBED}": [1.50, "\\u00e9", "${SCRUBBED}"] }`,
      );
    }
  });

  test("leaves an answer without the key as the upstream wrote it, and reads strings with escaped quotes right", () => {
    const body = '{"a":"say \\"k\\\\\\"","b":"\\\\","c":"k/ey"}';
    expect(outputJson(bytes(body), "application/json", KEY).text).toBe(body);
    const quoted = '{"q":"\\"\\\\","k":"k\\/ey+1"}';
    expect(outputJson(bytes(quoted), "application/json", KEY).text).toBe(`{"q":"\\"\\\\","k":"${SCRUBBED}"}`);
  });

  test("scrubs a JSON text sent under another content type by its values, as the caller could parse it", () => {
    const output = outputJson(bytes(`{"echo":"${escapedAll(KEY)}"}`), "text/plain", KEY);
    expect(JSON.parse(output.value() as string)).toEqual({ echo: SCRUBBED });
  });

  test("is a flat scan: 20,000 levels of nesting holding the key are scrubbed without a stack overflow", () => {
    const deep = `${'{"a":'.repeat(20_000)}"k\\/ey+1"${"}".repeat(20_000)}`;
    const output = outputJson(bytes(deep), "application/json", KEY);
    expect(output.text).toBe(`${'{"a":'.repeat(20_000)}"${SCRUBBED}"${"}".repeat(20_000)}`);
  });
});

/** Attack: the upstream's Retry-After was echoed unchecked (`kkk/<key>`). */
describe("an upstream's Retry-After", () => {
  test("is passed on only as delta-seconds or an HTTP-date, never holding the key", () => {
    for (const value of [
      "120",
      " 0 ",
      "Sun, 06 Nov 1994 08:49:37 GMT",
      "Sunday, 06-Nov-94 08:49:37 GMT",
      "Sun Nov  6 08:49:37 1994",
    ]) {
      expect(upstreamRetryAfter(value, KEY), value).toBe(value.trim());
    }
    for (const value of [
      `kkk/${KEY}`,
      "-1",
      "1.5",
      "12345678901",
      "Sun, 06 Nov 1994 25:49:37 GMT",
      "06 Nov 1994 08:49:37 GMT",
      "120, 120",
      "",
      undefined,
    ]) {
      expect(upstreamRetryAfter(value, KEY), String(value)).toBeUndefined();
    }
    expect(upstreamRetryAfter("120", "12")).toBeUndefined();
  });
});

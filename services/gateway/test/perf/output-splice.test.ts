import { describe, expect, test } from "vitest";
import { OutputJson, outputJson, SCRUBBED } from "../../src/domain/output.ts";
import { envelopeJson, type RunEnvelope } from "../../src/runner/run-tool.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("the run output, spliced", () => {
  test("is the upstream's JSON text when it parses, else the text as a string, null when empty", () => {
    const cases: [string, string | undefined, unknown][] = [
      ['{ "b": 1, "1": [1.50, "é", null] }\n', "application/json", { b: 1, "1": [1.5, "é", null] }],
      ["{broken", "application/json", "{broken"],
      ['{"a":1}', "text/plain", '{"a":1}'],
      ["", "application/json", null],
      ["\uFEFF{}", "application/json", {}],
    ];
    for (const [text, type, value] of cases) {
      expect(JSON.parse(outputJson(bytes(text), type).text), text).toEqual(value);
    }
    expect(outputJson(bytes('{ "b": 1 }'), "application/json").text).toBe('{ "b": 1 }');
  });

  test("is scrubbed of the caller's key before it is checked", () => {
    const key = 'k"ey/+1';
    const body = JSON.stringify({ message: `bad key ${key}`, url: `?key=${encodeURIComponent(key)}` });
    const output = outputJson(bytes(body), "application/json", key);
    expect(output.text).not.toContain("ey/+1");
    expect((output.value() as { url: string }).url).toBe(`?key=${SCRUBBED}`);
  });

  test("makes an envelope whose JSON is the envelope's, whatever serialises it", () => {
    const envelope: RunEnvelope = {
      runId: "run_x",
      provider: "markets",
      endpoint: "/pm/event",
      method: "GET",
      upstream: { status: 429, retryAfter: "7" },
      output: new OutputJson('{"z":1,"a":[true,{"x":"\\u2028"}]}'),
      cost: { amount: "0", currency: "USD" },
      balance: { amount: "1.5", currency: "USD" },
      durationMs: 12,
    };
    const plain = { ...envelope, output: (envelope.output as OutputJson).value() };
    expect(JSON.parse(envelopeJson(envelope))).toEqual(plain);
    expect(JSON.parse(JSON.stringify(envelope))).toEqual(plain);
    expect(Object.keys(JSON.parse(envelopeJson(envelope)))).toEqual(Object.keys(plain));
  });
});

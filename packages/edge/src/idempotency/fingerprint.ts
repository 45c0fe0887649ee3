import { createHash } from "node:crypto";

/** One step of {@link canonicalJson}: text to write as it is, or a value still to serialise. */
type Step = { text: string } | { value: unknown };

const byCodeUnits = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * JSON with object keys sorted at every level (by UTF-16 code units), so equal values always
 * print the same; `undefined` members are left out, as `JSON.stringify` leaves them. Walked with an
 * explicit stack, never by recursion, so no nesting, however hostile, can overflow the call stack:
 * the work is linear in the size of the value.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const steps: Step[] = [{ value }];
  while (steps.length > 0) {
    const step = steps.pop() as Step;
    if ("text" in step) {
      out.push(step.text);
      continue;
    }
    const current = step.value;
    if (Array.isArray(current)) {
      steps.push({ text: "]" });
      for (let index = current.length - 1; index >= 0; index -= 1) {
        steps.push({ value: current[index] });
        if (index > 0) steps.push({ text: "," });
      }
      steps.push({ text: "[" });
    } else if (current !== null && typeof current === "object") {
      const entries = Object.entries(current)
        .filter(([, item]) => item !== undefined)
        .sort(byCodeUnits);
      steps.push({ text: "}" });
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, item] = entries[index] as [string, unknown];
        steps.push({ value: item }, { text: `${JSON.stringify(key)}:` });
        if (index > 0) steps.push({ text: "," });
      }
      steps.push({ text: "{" });
    } else {
      out.push(JSON.stringify(current) ?? "null");
    }
  }
  return out.join("");
}

/**
 * The fingerprint of a request for `Idempotency-Key` comparison: the SHA-256 (hex) of its
 * {@link canonicalJson}. Pass only what makes two requests the same operation (the body, the
 * tool and its input), never a secret: the fingerprint is stored.
 */
export function requestFingerprint(request: unknown): string {
  return createHash("sha256").update(canonicalJson(request)).digest("hex");
}

import { createHash } from "node:crypto";

/** JSON with object keys sorted at every level, so equal values always print the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The fingerprint of a run request for `Idempotency-Key` comparison: SHA-256 of its canonical
 * JSON. The caller passes only the tool and its input, never the upstream key, so a retry is
 * recognised whatever key it carries and no trace of the key reaches the database.
 */
export function runFingerprint(request: {
  provider: string;
  endpoint: string;
  method: string;
  input?: unknown;
}): string {
  return createHash("sha256")
    .update(
      canonicalJson({
        provider: request.provider,
        endpoint: request.endpoint,
        method: request.method.toUpperCase(),
        input: request.input ?? {},
      }),
    )
    .digest("hex");
}

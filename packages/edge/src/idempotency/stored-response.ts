import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The header a replayed response carries. */
export const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";

/**
 * A response kept for retries under an `Idempotency-Key`, exactly as it was first sent: its
 * status, the headers worth replaying (its content type and those the operation names), and its
 * body as the text that went out, so a replay is the same bytes (key order, whitespace, escapes).
 */
export type StoredResponse = { status: number; headers: Record<string, string>; body: string };

/**
 * A JSON response in the form it is both sent and kept in: `value` serialised once, with
 * `Content-Type: application/json` and `headers`. Send it with {@link sendStoredResponse}, so the
 * first answer and every replay are the same bytes.
 */
export function storedJson(
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): StoredResponse {
  return storedJsonText(status, JSON.stringify(value) ?? "null", headers);
}

/** A JSON text already serialised (an envelope spliced together), kept as it is. */
export function storedJsonText(
  status: number,
  jsonText: string,
  headers: Record<string, string> = {},
): StoredResponse {
  return { status, headers: { "Content-Type": "application/json", ...headers }, body: jsonText };
}

/**
 * Sends a stored response: its status, headers and body text as they are; a replay (`replayed`)
 * adds `Idempotent-Replayed: true`.
 */
export function sendStoredResponse(c: Context, stored: StoredResponse, replayed: boolean): Response {
  const headers = replayed ? { ...stored.headers, [IDEMPOTENT_REPLAYED_HEADER]: "true" } : stored.headers;
  return c.body(stored.body, stored.status as ContentfulStatusCode, headers);
}

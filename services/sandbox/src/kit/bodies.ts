import { requestBodySource, requestHeader } from "@app/core";
import type { Context } from "hono";
import { PlatformFailure } from "./failure.ts";

/** The most a JSON or form body may hold (the platforms' own API bodies are far smaller). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The request body as UTF-8 text, read as it streams: a body over `maxBytes` (declared by its
 * `Content-Length`, or chunked) is refused with 413 in the operation's own format. Past the limit
 * nothing more is kept, but the rest is read and dropped so that the client gets the answer.
 */
export async function readBodyText(c: Context, maxBytes: number = BODY_LIMIT_BYTES): Promise<string> {
  const tooLarge = () => new PlatformFailure(413, "", `The request body is larger than ${maxBytes} bytes.`);
  const declared = requestHeader(c, "content-length");
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of requestBodySource(c)) {
    const piece = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += piece.length;
    if (size <= maxBytes) chunks.push(piece);
  }
  if (size > maxBytes) throw tooLarge();
  return Buffer.concat(chunks).toString("utf8");
}

/** The JSON object body of a request; a body that is not a JSON object is `onBad`'s refusal. */
export async function readJsonObject(
  c: Context,
  onBad: () => PlatformFailure,
): Promise<Record<string, unknown>> {
  const text = await readBodyText(c);
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // refused below
  }
  throw onBad();
}

/** The fields of an `application/x-www-form-urlencoded` body (the OAuth token endpoints' format). */
export async function readForm(c: Context): Promise<URLSearchParams> {
  const type = requestHeader(c, "content-type") ?? "";
  const text = await readBodyText(c);
  if (type.startsWith("application/json")) {
    // Google's token endpoint also takes JSON; TikTok's does not, and its caller checks the type itself.
    try {
      const value = JSON.parse(text) as Record<string, unknown>;
      return new URLSearchParams(
        Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
      );
    } catch {
      return new URLSearchParams();
    }
  }
  return new URLSearchParams(text);
}

/** The bearer token of the `Authorization` header, if it has one. */
export function bearerToken(c: Context): string | undefined {
  const header = requestHeader(c, "authorization");
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

/** The origin the caller reached the sandbox at: where session and upload URLs point back to. */
export function originOf(c: Context): string {
  return new URL(c.req.url).origin;
}

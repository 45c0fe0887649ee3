import { requestHeader } from "@app/core";
import type { Context } from "hono";
import type { PlatformFailure } from "./failure.ts";

/** The JSON object body of a request; a body that is not a JSON object is `onBad`'s refusal. */
export async function readJsonObject(
  c: Context,
  onBad: () => PlatformFailure,
): Promise<Record<string, unknown>> {
  const text = await c.req.text();
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
  const text = await c.req.text();
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

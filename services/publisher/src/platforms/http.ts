import { Readable } from "node:stream";
import type { Platform } from "../contracts/post.ts";
import { PlatformError } from "./errors.ts";

/** A request to a platform. A stream body is sent with its exact `content-length` header. */
export type PlatformRequest = {
  method: "GET" | "POST" | "PUT";
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer | Readable;
  timeoutMs: number;
};

/**
 * Sends one request with a time limit. A network failure (refused, reset, timed out) becomes a
 * transient {@link PlatformError} with reason `network`: the caller decides whether the request
 * may have reached the platform. Redirects are never followed.
 */
export async function platformFetch(platform: Platform, request: PlatformRequest): Promise<Response> {
  const body =
    request.body === undefined || typeof request.body === "string" || Buffer.isBuffer(request.body)
      ? request.body
      : Readable.toWeb(request.body);
  try {
    return await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: body as RequestInit["body"],
      redirect: "manual",
      signal: AbortSignal.timeout(request.timeoutMs),
      ...(body && typeof body === "object" && !Buffer.isBuffer(body) ? { duplex: "half" } : {}),
    } as RequestInit);
  } catch (error) {
    const cause = error instanceof Error ? (error.cause instanceof Error ? error.cause : error) : undefined;
    const detail = cause && "code" in cause ? String(cause.code) : (cause?.name ?? "error");
    throw new PlatformError(platform, "transient", "network", `The request did not complete (${detail}).`);
  }
}

/** The response body as JSON, or an empty object when it is not JSON. */
export async function readJson(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A string field of a parsed body, or undefined. */
export function stringField(body: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = body?.[name];
  return typeof value === "string" ? value : undefined;
}

/** A nested object field, or undefined. */
export function objectField(
  body: Record<string, unknown> | undefined,
  name: string,
): Record<string, unknown> | undefined {
  const value = body?.[name];
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** `application/x-www-form-urlencoded` body and header. */
export function formBody(fields: Record<string, string>): { headers: Record<string, string>; body: string } {
  return {
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  };
}

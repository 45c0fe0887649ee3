import { Readable } from "node:stream";
import type { Platform } from "../contracts/post.ts";
import { PlatformError } from "./errors.ts";

/** A request to a platform. A stream body is sent with its exact `content-length` header. */
export type PlatformRequest = {
  method: "GET" | "POST" | "PUT" | "DELETE";
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer | Readable;
  timeoutMs: number;
};

/**
 * A platform call that ran out of its time limit (no answer, or a body sent or read at a crawl):
 * transient, but publishing retries it as sparingly as a stalled media download (retry-policy.ts),
 * since a host that never answers (a self-hosted PDS is anyone's) would otherwise hold a worker
 * for the limit at every attempt.
 */
export class PlatformTimeout extends PlatformError {
  constructor(platform: Platform, timeoutMs: number) {
    super(platform, "transient", "timeout", `The request timed out after ${timeoutMs} ms.`);
    this.name = "PlatformTimeout";
  }
}

/**
 * Sends one request with a time limit. A network failure (refused, reset) becomes a transient
 * {@link PlatformError} with reason `network`, the time limit a {@link PlatformTimeout}: the caller
 * decides whether the request may have reached the platform. Redirects are never followed.
 */
export async function platformFetch(platform: Platform, request: PlatformRequest): Promise<Response> {
  const body =
    request.body === undefined || typeof request.body === "string" || Buffer.isBuffer(request.body)
      ? request.body
      : Readable.toWeb(request.body);
  const deadline = AbortSignal.timeout(request.timeoutMs);
  try {
    return await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: body as RequestInit["body"],
      redirect: "manual",
      signal: deadline,
      ...(body && typeof body === "object" && !Buffer.isBuffer(body) ? { duplex: "half" } : {}),
    } as RequestInit);
  } catch (error) {
    if (deadline.aborted) throw new PlatformTimeout(platform, request.timeoutMs);
    const cause = error instanceof Error ? (error.cause instanceof Error ? error.cause : error) : undefined;
    const detail = cause && "code" in cause ? String(cause.code) : (cause?.name ?? "error");
    throw new PlatformError(platform, "transient", "network", `The request did not complete (${detail}).`);
  }
}

/** The most of an answer read: 1 MiB for a success, 64 KiB for an error (a platform's own, or a self-hosted PDS's). */
export const MAX_ANSWER_BYTES = 1024 * 1024;
export const MAX_ERROR_ANSWER_BYTES = 64 * 1024;

/** The body as text, or undefined (and the rest not read) when it is longer than `limit` bytes. */
async function boundedText(res: Response, limit: number): Promise<string | undefined> {
  if (Number(res.headers.get("content-length")) > limit) {
    await res.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The response body as JSON, or an empty object when it is not JSON or longer than the bound
 * ({@link MAX_ANSWER_BYTES}, {@link MAX_ERROR_ANSWER_BYTES} for an error): callers then see an
 * answer without the fields they need, as from any malformed answer.
 */
export async function readJson(res: Response): Promise<Record<string, unknown>> {
  const text = await boundedText(res, res.ok ? MAX_ANSWER_BYTES : MAX_ERROR_ANSWER_BYTES);
  if (text === undefined) return {};
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

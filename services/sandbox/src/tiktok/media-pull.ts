import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { MediaDigest } from "../kit/digest.ts";
import type { PulledMedia } from "./state.ts";

/**
 * True when `candidate` lies under one of the verified URL prefixes (same origin, path under the
 * prefix's path): TikTok pulls only from URL prefixes or domains the developer verified.
 */
export function isVerifiedUrl(candidate: string, prefixes: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  return prefixes.some((prefix) => {
    const verified = new URL(prefix);
    return url.origin === verified.origin && url.pathname.startsWith(verified.pathname);
  });
}

/**
 * Fetches a media URL the way TikTok's puller does: a GET that must answer 200, followed by no
 * redirect (it could leave the verified prefix), within the time limit and size cap. The body is
 * hashed as it streams and never kept.
 */
export async function pullMedia(
  url: string,
  options: { timeoutMs: number; maxBytes: number },
): Promise<PulledMedia | { failure: string }> {
  try {
    const response = await fetch(url, { redirect: "error", signal: AbortSignal.timeout(options.timeoutMs) });
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel();
      return { failure: `GET ${url} answered ${response.status}` };
    }
    const digest = new MediaDigest();
    let bytes = 0;
    const cap = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        callback(bytes > options.maxBytes ? new Error(`larger than ${options.maxBytes} bytes`) : null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(response.body), cap, digest.sink());
    return {
      url,
      bytes: digest.bytes,
      sha256: digest.finish(),
      contentType: (response.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "",
    };
  } catch (error) {
    return { failure: `GET ${url} failed: ${(error as Error).message}` };
  }
}

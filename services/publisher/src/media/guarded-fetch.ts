import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { Transform } from "node:stream";
import { isPublicAddress } from "./address-policy.ts";
import { MediaError } from "./media-error.ts";

/** Limits of a server-side media fetch. */
export type FetchGuard = {
  /** Origins (`http://127.0.0.1:3002`) exempt from the address checks: the service's own. */
  trustedOrigins: readonly string[];
  maxBytes: number;
  /** Time to connect, and the longest silence while reading. */
  connectTimeoutMs: number;
  /** Time for the whole download. */
  totalTimeoutMs: number;
  maxRedirects: number;
};

export type FetchedMedia = {
  stream: NodeJS.ReadableStream & Transform;
  size: number;
  declaredType: string | null;
};

/** A DNS lookup that refuses names resolving to any non-public address (checked at connect time). */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, "", 4);
    const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
    if (blocked || addresses.length === 0) {
      const refusal = Object.assign(new Error(`${hostname} resolves to a forbidden address.`), {
        code: "EADDRFORBIDDEN",
      });
      return callback(refusal, "", 4);
    }
    if ((options as { all?: boolean }).all)
      return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0] as LookupAddress;
    callback(null, first.address, first.family);
  });
};

function checkUrl(url: URL, guard: FetchGuard): { trusted: boolean } {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new MediaError("MEDIA_URL_REJECTED", `Only http(s) media URLs are fetched (${url.protocol}).`);
  }
  if (url.username || url.password)
    throw new MediaError("MEDIA_URL_REJECTED", "Media URLs carry no credentials.");
  const trusted = guard.trustedOrigins.includes(url.origin);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!trusted && isIP(host) && !isPublicAddress(host)) {
    throw new MediaError("MEDIA_URL_REJECTED", "The media URL points at a forbidden address.");
  }
  return { trusted };
}

function get(url: URL, trusted: boolean, guard: FetchGuard, signal: AbortSignal): Promise<IncomingMessage> {
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, {
      method: "GET",
      headers: { accept: "image/*,video/*", "user-agent": "publisher-media-fetch" },
      lookup: trusted ? undefined : publicOnlyLookup,
      timeout: guard.connectTimeoutMs,
      signal,
    });
    req.on("timeout", () =>
      req.destroy(new MediaError("MEDIA_UNAVAILABLE", "The media host timed out.", true)),
    );
    req.on("error", (error: NodeJS.ErrnoException) =>
      reject(
        error instanceof MediaError
          ? error
          : error.code === "EADDRFORBIDDEN"
            ? new MediaError("MEDIA_URL_REJECTED", "The media URL resolves to a forbidden address.")
            : new MediaError(
                "MEDIA_UNAVAILABLE",
                `The media could not be fetched (${error.code ?? error.name}).`,
                true,
              ),
      ),
    );
    req.on("response", resolve);
    req.end();
  });
}

/** Counts bytes as they pass and fails past `limit` (a body longer than it announced). */
function byteLimit(limit: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > limit)
        return done(new MediaError("MEDIA_TOO_LARGE", "The media is larger than it announced."));
      done(null, chunk);
    },
  });
}

/**
 * GETs a media URL with the SSRF guards: http(s) only, no credentials, no loopback / private /
 * link-local / metadata address (IP literals checked here, names after DNS at connect time,
 * so a rebinding name cannot slip through), each redirect re-checked, a Content-Length at most
 * `maxBytes`, and connect and total time limits.
 */
export async function guardedFetch(rawUrl: string, guard: FetchGuard): Promise<FetchedMedia> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new MediaError("MEDIA_UNAVAILABLE", "The media download took too long.", true)),
    guard.totalTimeoutMs,
  );
  timer.unref();
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new MediaError("MEDIA_URL_REJECTED", "The media URL is not a URL.");
  }
  try {
    for (let hop = 0; hop <= guard.maxRedirects; hop += 1) {
      const { trusted } = checkUrl(url, guard);
      const res = await get(url, trusted, guard, controller.signal);
      const location = res.headers.location;
      if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && location) {
        res.resume();
        url = new URL(location, url);
        continue;
      }
      if (res.statusCode !== 200) {
        res.resume();
        const transient = (res.statusCode ?? 500) >= 500 || res.statusCode === 429;
        throw new MediaError("MEDIA_UNAVAILABLE", `The media host answered ${res.statusCode}.`, transient);
      }
      const size = Number(res.headers["content-length"]);
      if (!Number.isSafeInteger(size) || size < 1) {
        res.resume();
        throw new MediaError("MEDIA_UNAVAILABLE", "The media host sent no Content-Length.");
      }
      if (size > guard.maxBytes) {
        res.resume();
        throw new MediaError("MEDIA_TOO_LARGE", `The media is over ${guard.maxBytes} bytes.`);
      }
      const stream = res.pipe(byteLimit(size));
      res.on("error", (error) => stream.destroy(error));
      stream.on("close", () => clearTimeout(timer));
      return { stream, size, declaredType: res.headers["content-type"] ?? null };
    }
    throw new MediaError("MEDIA_URL_REJECTED", "The media URL redirects too many times.");
  } catch (error) {
    clearTimeout(timer);
    throw error;
  }
}

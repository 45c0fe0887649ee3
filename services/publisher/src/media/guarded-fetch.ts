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
  /**
   * The stall window (default: `connectTimeoutMs`): the response head must arrive within it once
   * connected, and every window of the body must bring `minBytesPerWindow` bytes (or the rest).
   */
  stallWindowMs?: number;
  /** The least a host must send in each stall window (default {@link DEFAULT_MIN_BYTES_PER_WINDOW}). */
  minBytesPerWindow?: number;
  /** The `Accept` header (default: images and videos). */
  accept?: string;
  /** Whether a body without Content-Length is read (up to `maxBytes`); media must announce its size. */
  lengthOptional?: boolean;
};

/**
 * 64 KiB per window: 6.4 KiB/s at the default 10 s window, far below any host that serves media,
 * far above a host that trickles a byte a second to hold a worker until the total limit.
 */
export const DEFAULT_MIN_BYTES_PER_WINDOW = 64 * 1024;

/**
 * A media host that sent too little for too long (a trickle, or a head that never completes).
 * Transient, but publishing retries it only a bounded number of times (see retry-policy.ts): a host
 * that stalls once may be having a moment; one that stalls again holds workers for nothing.
 */
export class MediaStalled extends MediaError {
  constructor(message: string) {
    super("MEDIA_UNAVAILABLE", message, true);
    this.name = "MediaStalled";
  }
}

type StallLimits = { windowMs: number; minBytes: number };

function stallLimits(guard: FetchGuard): StallLimits {
  return {
    windowMs: guard.stallWindowMs ?? guard.connectTimeoutMs,
    minBytes: guard.minBytesPerWindow ?? DEFAULT_MIN_BYTES_PER_WINDOW,
  };
}

export type FetchedMedia = {
  stream: NodeJS.ReadableStream & Transform;
  size: number;
  declaredType: string | null;
};

/**
 * A DNS lookup for `http.request` that refuses (error code `EADDRFORBIDDEN`) a name resolving to
 * any address `allowed` refuses, checked at connect time, so a name cannot rebind between a check
 * and the connection. Also used for webhook targets (src/webhooks/guarded-post.ts).
 */
export function addressCheckedLookup(allowed: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 4);
      const blocked = addresses.find((entry) => !allowed(entry.address));
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
}

/** A DNS lookup that refuses names resolving to any non-public address (checked at connect time). */
const publicOnlyLookup = addressCheckedLookup(isPublicAddress);

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
  const stall = stallLimits(guard);
  return new Promise((resolve, reject) => {
    let req: ReturnType<typeof send>;
    try {
      req = send(url, {
        method: "GET",
        headers: { accept: guard.accept ?? "image/*,video/*", "user-agent": "publisher-media-fetch" },
        lookup: trusted ? undefined : publicOnlyLookup,
        timeout: guard.connectTimeoutMs,
        signal,
      });
    } catch {
      // A URL Node's client will not send (the WHATWG parser took it): refused, never thrown raw.
      return reject(new MediaError("MEDIA_URL_REJECTED", "The media URL cannot be requested."));
    }
    req.on("timeout", () =>
      req.destroy(new MediaError("MEDIA_UNAVAILABLE", "The media host timed out.", true)),
    );
    // The socket's idle timeout never fires for a head sent a byte at a time: it has a deadline.
    let headDeadline: NodeJS.Timeout | undefined;
    const startHeadDeadline = () => {
      headDeadline ??= setTimeout(
        () =>
          req.destroy(
            new MediaStalled(`The media host did not send its response head within ${stall.windowMs} ms.`),
          ),
        stall.windowMs,
      );
    };
    req.on("socket", (socket) => {
      if (socket.connecting) socket.once("connect", startHeadDeadline);
      else startHeadDeadline();
    });
    req.on("close", () => clearTimeout(headDeadline));
    req.on("response", () => clearTimeout(headDeadline));
    req.on("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRFORBIDDEN"
          ? new MediaError("MEDIA_URL_REJECTED", "The media URL resolves to a forbidden address.")
          : asMediaError(error, signal, "The media could not be fetched"),
      ),
    );
    req.on("response", resolve);
    req.end();
  });
}

/**
 * Any failure of a fetch as a {@link MediaError}: the total-time limit's own error when it was
 * reached (the request is then aborted, and Node reports a bare `AbortError` or `aborted`), one
 * already of ours as it is, anything else (a reset, a refused connection) a transient
 * `MEDIA_UNAVAILABLE` naming its code.
 */
function asMediaError(error: unknown, signal: AbortSignal, what: string): MediaError {
  if (signal.aborted && signal.reason instanceof MediaError) return signal.reason;
  if (error instanceof MediaError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? (error as Error | undefined)?.name;
  return new MediaError("MEDIA_UNAVAILABLE", `${what} (${code ?? "error"}).`, true);
}

/** The next URL of a redirect; a `Location` that is not a URL is the host's fault, refused. */
function redirectTarget(location: string, base: URL): URL {
  try {
    return new URL(location, base);
  } catch {
    throw new MediaError("MEDIA_URL_REJECTED", "The media host redirected to a malformed URL.");
  }
}

/**
 * The body as the caller reads it: fails past `size` bytes (a body longer than it announced), and
 * when a stall window passes with fewer than `minBytes` bytes (or the rest, if less) come in while
 * the reader was keeping up. A window in which the reader held the body back (the response was
 * paused by backpressure) is not held against the host.
 */
function guardedBody(res: IncomingMessage, size: number, stall: StallLimits): Transform {
  let seen = 0;
  let inWindow = 0;
  let heldBack = false;
  const body = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      inWindow += chunk.length;
      if (seen > size)
        return done(new MediaError("MEDIA_TOO_LARGE", `The body is larger than announced (${size} bytes).`));
      done(null, chunk);
    },
  });
  const onPause = () => {
    heldBack = true;
  };
  res.on("pause", onPause);
  const watch = setInterval(() => {
    const needed = Math.min(stall.minBytes, size - seen);
    if (!heldBack && !res.isPaused() && inWindow < needed) {
      body.destroy(
        new MediaStalled(
          `The media host sent ${inWindow} bytes in ${stall.windowMs} ms (at least ${needed} expected): the transfer stalled.`,
        ),
      );
    }
    inWindow = 0;
    heldBack = res.isPaused();
  }, stall.windowMs);
  watch.unref();
  body.on("close", () => {
    clearInterval(watch);
    res.off("pause", onPause);
    // A body given up on (stalled, refused, or no longer wanted by its reader) lets its socket go.
    if (!res.complete) res.destroy();
  });
  res.on("end", () => clearInterval(watch));
  return body;
}

/**
 * GETs a media URL with the SSRF guards: http(s) only, no credentials, no loopback / private /
 * link-local / metadata address (IP literals checked here, names after DNS at connect time,
 * so a rebinding name cannot slip through), each redirect re-checked, a Content-Length at most
 * `maxBytes`, connect and total time limits, and a floor under the transfer rate: the head must
 * come within a stall window of connecting and each window of the body must bring
 * `minBytesPerWindow` bytes, else the fetch fails as {@link MediaStalled} (a trickling host holds a
 * worker for a window, not for the whole total limit).
 */
export async function guardedFetch(rawUrl: string, guard: FetchGuard): Promise<FetchedMedia> {
  const controller = new AbortController();
  // The total-time limit is a stall too: a host just above the rate floor that cannot finish in
  // time holds a worker as long as a trickling one, and is retried as sparingly.
  const timer = setTimeout(
    () =>
      controller.abort(
        new MediaStalled(`The media download took longer than its limit of ${guard.totalTimeoutMs} ms.`),
      ),
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
        url = redirectTarget(location, url);
        continue;
      }
      if (res.statusCode !== 200) {
        res.resume();
        const transient = (res.statusCode ?? 500) >= 500 || res.statusCode === 429;
        throw new MediaError("MEDIA_UNAVAILABLE", `The media host answered ${res.statusCode}.`, transient);
      }
      const declared = Number(res.headers["content-length"] ?? Number.NaN);
      const announced = Number.isSafeInteger(declared) && declared >= 1;
      if (!announced && !guard.lengthOptional) {
        res.resume();
        throw new MediaError("MEDIA_UNAVAILABLE", "The media host sent no Content-Length.");
      }
      if (declared > guard.maxBytes) {
        res.resume();
        throw new MediaError("MEDIA_TOO_LARGE", `The media is over ${guard.maxBytes} bytes.`);
      }
      // An unannounced body is cut off past the limit, as one longer than it announced.
      const size = announced ? declared : guard.maxBytes;
      const stream = res.pipe(guardedBody(res, size, stallLimits(guard)));
      // A body broken off part-way (a reset, or the total-time limit) fails as a MediaError too.
      res.on("error", (error) =>
        stream.destroy(asMediaError(error, controller.signal, "The media transfer broke off")),
      );
      stream.on("close", () => clearTimeout(timer));
      return { stream, size, declaredType: res.headers["content-type"] ?? null };
    }
    throw new MediaError("MEDIA_URL_REJECTED", "The media URL redirects too many times.");
  } catch (error) {
    clearTimeout(timer);
    throw asMediaError(error, controller.signal, "The media could not be fetched");
  }
}

/**
 * A small document read whole through the same guards (a page for a link card, its image): a body
 * without Content-Length is read up to `maxBytes`, past which the read fails.
 */
export async function guardedRead(
  rawUrl: string,
  guard: FetchGuard & { accept: string },
): Promise<{ body: Buffer; contentType: string | null }> {
  const fetched = await guardedFetch(rawUrl, { ...guard, lengthOptional: true });
  const chunks: Buffer[] = [];
  for await (const chunk of fetched.stream) chunks.push(chunk as Buffer);
  return { body: Buffer.concat(chunks), contentType: fetched.declaredType };
}

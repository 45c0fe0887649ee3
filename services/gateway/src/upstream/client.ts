/**
 * The gateway's HTTP client for upstreams, as a small capability: an interface, the real
 * implementation on undici (`undici-client.ts`) and a fake (`client.fake.ts`), so the service,
 * its tests and the benchmark can swap them.
 */

/** One upstream call: always a registered URL, only the headers the gateway chose. */
export type UpstreamRequest = {
  url: URL;
  method: "GET";
  /** Lower-case header names; the upstream key, when the tool takes one, is among them. */
  headers: Record<string, string>;
};

/** What the upstream answered, whole (the body is within the size cap). */
export type UpstreamResponse = {
  status: number;
  contentType: string | undefined;
  /** The upstream's `Retry-After`, when it sent one (a 429 or 503). */
  retryAfter: string | undefined;
  body: Uint8Array;
};

/** Why the upstream gave no usable answer. */
export type UpstreamFailureKind = "unavailable" | "timeout" | "too_large";

/** The upstream was not reached, was too slow, or answered more than the cap. */
export class UpstreamFailure extends Error {
  override name = "UpstreamFailure";

  constructor(
    readonly kind: UpstreamFailureKind,
    /** A short cause without any request detail (`ECONNREFUSED`, `connect`, `headers`, …). */
    readonly detail: string,
  ) {
    super(`upstream ${kind}: ${detail}`);
  }
}

/** Limits of every upstream call, from config. */
export type UpstreamLimits = {
  connectTimeoutMs: number;
  /** The whole call: connect, headers and body. */
  timeoutMs: number;
  maxResponseBytes: number;
};

/** Sends one request to an upstream. Redirects are never followed; failures are {@link UpstreamFailure}. */
export interface UpstreamClient {
  send(request: UpstreamRequest): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

import { Agent, type Dispatcher, errors } from "undici";
import { type UpstreamClient, UpstreamFailure, type UpstreamLimits } from "./client.ts";

/** undici error codes of a connection that could not be made or was lost. */
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
]);

function errorCode(error: unknown): string | undefined {
  const direct = (error as { code?: unknown }).code;
  if (typeof direct === "string") return direct;
  const cause = (error as { cause?: { code?: unknown } }).cause?.code;
  return typeof cause === "string" ? cause : undefined;
}

/** Maps whatever undici threw to an {@link UpstreamFailure}, naming the cause but no request detail. */
function toFailure(error: unknown, signal: AbortSignal): UpstreamFailure {
  if (error instanceof UpstreamFailure) return error;
  if (error instanceof errors.ConnectTimeoutError) return new UpstreamFailure("timeout", "connect");
  if (error instanceof errors.HeadersTimeoutError) return new UpstreamFailure("timeout", "headers");
  if (error instanceof errors.BodyTimeoutError) return new UpstreamFailure("timeout", "body");
  if (signal.aborted) return new UpstreamFailure("timeout", "total");
  const code = errorCode(error);
  if (code && UNAVAILABLE_CODES.has(code)) return new UpstreamFailure("unavailable", code);
  return new UpstreamFailure("unavailable", code ?? "request failed");
}

/** Drops a body not to be read: destroyed, its abort error swallowed (no listener would crash the process). */
function discard(body: Dispatcher.ResponseData["body"]): void {
  body.on("error", () => undefined);
  body.destroy();
}

/** A body of unannounced length, read while it streams and refused past `maxBytes`. */
async function readCapped(body: Dispatcher.ResponseData["body"], maxBytes: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      discard(body);
      throw new UpstreamFailure("too_large", "body");
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The real upstream client: undici with a keep-alive pool, a connect timeout, a total deadline
 * (connect + headers + body), a response-size cap enforced while the body streams (and from
 * `Content-Length` before it does), and no redirect following (a 3xx is an answer like any other).
 */
export function createUndiciUpstreamClient(limits: UpstreamLimits): UpstreamClient {
  const agent = new Agent({
    connect: { timeout: limits.connectTimeoutMs },
    headersTimeout: limits.timeoutMs,
    bodyTimeout: limits.timeoutMs,
    keepAliveTimeout: 10_000,
  });
  return {
    async send(request) {
      const signal = AbortSignal.timeout(limits.timeoutMs);
      try {
        const response = await agent.request({
          origin: request.url.origin,
          path: `${request.url.pathname}${request.url.search}`,
          method: request.method,
          headers: request.headers,
          signal,
        });
        const declared = Number(response.headers["content-length"] ?? Number.NaN);
        if (declared > limits.maxResponseBytes) {
          discard(response.body);
          throw new UpstreamFailure("too_large", "content-length");
        }
        const body = Number.isSafeInteger(declared)
          ? // Announced and within the cap: undici fails a body that runs past its Content-Length.
            await response.body.bytes()
          : await readCapped(response.body, limits.maxResponseBytes);
        const header = (name: string) => {
          const value = response.headers[name];
          return Array.isArray(value) ? value.join(", ") : value;
        };
        return {
          status: response.statusCode,
          contentType: header("content-type"),
          retryAfter: header("retry-after"),
          body,
        };
      } catch (error) {
        throw toFailure(error, signal);
      }
    },
    close: () => agent.close(),
  };
}

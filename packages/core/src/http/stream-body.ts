import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Context } from "hono";
import { ApiError } from "../errors.ts";

function webBody(c: Context): Readable {
  const body = c.req.raw.body;
  return body ? Readable.fromWeb(body as never) : Readable.from([]);
}

/**
 * The request body as one Node stream, to be read once. Under @hono/node-server, Node's request is
 * the body itself: touching `c.req.raw.body` then would start a second reader on the same socket,
 * and a body longer than one read would hang. Elsewhere (`app.request` in tests), the web body.
 */
export function requestBodySource(c: Context): Readable {
  return (c.env as { incoming?: Readable } | undefined)?.incoming ?? webBody(c);
}

/**
 * Streams the request body into `sink` chunk by chunk, never holding it whole in
 * memory, and resolves with the number of bytes written. Bodies past `maxBytes`
 * fail with 413 (the sink has then received a prefix only; the caller discards it).
 */
export async function streamRequestBody(
  c: Context,
  sink: Writable,
  options: { maxBytes: number },
): Promise<number> {
  const source = requestBodySource(c);
  let bytes = 0;
  // Counted as the chunks go by (no stream in between): the pipe below sees the same chunks.
  source.on("data", (chunk: Uint8Array) => {
    bytes += chunk.length;
    if (bytes > options.maxBytes) {
      source.destroy(
        new ApiError("PAYLOAD_TOO_LARGE", `The request body is larger than ${options.maxBytes} bytes.`),
      );
    }
  });
  await pipeline(source, sink);
  return bytes;
}

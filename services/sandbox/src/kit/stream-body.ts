import type { IncomingMessage } from "node:http";
import { Readable, Transform, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Context } from "hono";

/**
 * Streams the request body into `sink` and resolves with the bytes written; more than
 * `maxBytes` fails. Served by `@hono/node-server` it reads Node's request stream itself and
 * never touches `c.req.raw.body` (reading that getter wires the same stream into a web stream,
 * and the two readers then starve each other; `@app/core`'s `streamRequestBody` reads it first,
 * which hangs on bodies larger than one socket read: reported to the lead).
 */
export async function pipeRequestBody(c: Context, sink: Writable, maxBytes: number): Promise<number> {
  const source = requestBodySource(c);
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      callback(bytes > maxBytes ? new Error(`The body is larger than ${maxBytes} bytes.`) : null, chunk);
    },
  });
  await pipeline(source, counter, sink);
  return bytes;
}

/**
 * The request body as one Node stream, read once: Node's own request stream when served by
 * `@hono/node-server` (see {@link pipeRequestBody} for why not `c.req.raw.body`), else the web body.
 */
export function requestBodySource(c: Context): Readable {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming ?? (c.req.raw.body ? Readable.fromWeb(c.req.raw.body as never) : Readable.from([]));
}

import type { IncomingMessage, ServerResponse } from "node:http";
import { type Logger, requestIdOf } from "@app/core";
import type { Context, MiddlewareHandler } from "hono";
import { PublisherError } from "../errors.ts";

/**
 * How a client ended an upload before its body was complete: the connection was reset or closed
 * under the request (`aborted`), or the client's side ended (FIN: a half-close, or a close that
 * looks the same at this end) and it was answered here (`answered`).
 */
export type ClientEnd = "aborted" | "answered";

export type ClientEndWatch = {
  /** What the client did, read once the upload failed; undefined when the failure was not its doing. */
  outcome(): ClientEnd | undefined;
  /** Stops watching (the upload is over). */
  stop(): void;
};

/**
 * The runtime's own `Response`. `@hono/node-server` replaces the global with a subclass of it
 * whose bodiless instances it writes out whatever their headers say; it honours
 * `x-hono-already-sent` only on the runtime's own.
 */
function runtimeResponse(): typeof Response {
  const parent: unknown = Object.getPrototypeOf(Response);
  return typeof parent === "function" && parent.name === "Response" ? (parent as typeof Response) : Response;
}

/**
 * The response the route returns once this module answered: `@hono/node-server` then writes
 * nothing more, and the access log still shows `status`.
 */
export const alreadyAnswered = (status: number): Response =>
  new (runtimeResponse())(null, { status, headers: { "x-hono-already-sent": "true" } });

/** The answer to a body cut short by a half-close, as the platform's error body. */
export function shortBodyError(expectedBytes: number): PublisherError {
  return new PublisherError(
    "INCOMPLETE_UPLOAD",
    `The body ended before its Content-Length of ${expectedBytes} bytes; nothing was stored.`,
    { expectedBytes },
  );
}

type NodeBindings = { incoming?: IncomingMessage; outgoing?: ServerResponse };

/**
 * Watches the client of an upload. A client that half-closes its side (sends FIN) before the body's
 * `Content-Length` is in makes Node's HTTP parser fail at that end of stream, and Node then answers
 * a bare `400 Bad Request` itself, unless a response was already started. So this answers first,
 * from a listener put ahead of Node's own on the socket's `end`: `INCOMPLETE_UPLOAD` as JSON, with
 * `Connection: close`. The route then returns {@link alreadyAnswered}. Served outside Node (tests
 * through `app.request`) there is no socket and nothing to watch.
 */
export function watchClientEnd(c: Context, expectedBytes: number): ClientEndWatch {
  const { incoming, outgoing } = (c.env ?? {}) as NodeBindings;
  const socket = incoming?.socket;
  if (!incoming || !outgoing || !socket) return { outcome: () => undefined, stop: () => undefined };
  const existing = watches.get(incoming);
  if (existing) return existing;
  let answered = false;
  const onEnd = () => {
    if (incoming.complete || outgoing.headersSent || outgoing.writableEnded) return;
    answered = true;
    const body = JSON.stringify(shortBodyError(expectedBytes).toBody());
    outgoing.writeHead(400, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      connection: "close",
    });
    outgoing.end(body);
  };
  socket.prependListener("end", onEnd);
  const watch: ClientEndWatch = {
    outcome() {
      if (answered) return "answered";
      if (incoming.complete) return undefined;
      return incoming.destroyed || socket.destroyed ? "aborted" : undefined;
    },
    stop: () => socket.off("end", onEnd),
  };
  watches.set(incoming, watch);
  return watch;
}

/** The watch of each request's client, so the route's own receive finds the one started early. */
const watches = new WeakMap<IncomingMessage, ClientEndWatch>();

/**
 * Route middleware, first in an upload's chain: watches the client from the moment its request
 * arrives, before its key is checked (a database round trip, during which a client may already have
 * half-closed). Once the client was answered here, that answer stands, whatever the route answers.
 */
export const watchUploadClient: MiddlewareHandler = async (c, next) => {
  const declared = Number(c.req.header("content-length"));
  const watch = watchClientEnd(c, Number.isSafeInteger(declared) && declared > 0 ? declared : 0);
  try {
    await next();
  } finally {
    watch.stop();
  }
  if (watch.outcome() !== "answered" || c.res.headers.get("x-hono-already-sent") === "true") return;
  // Replaced, not merged: Hono's setter would copy the answer into a Response the server writes out.
  c.res = undefined;
  c.res = alreadyAnswered(400);
};

/**
 * Runs `receive` (an upload's body into storage) under a {@link watchClientEnd}. When the client
 * ended the upload early, that is logged at info as the client's doing (no stack: nothing failed
 * here) and the upload fails as `INCOMPLETE_UPLOAD`; when the client was already answered here,
 * {@link watchUploadClient} (which a route receiving this way runs first) keeps that answer over
 * the error's. Any other failure is the caller's, unchanged.
 */
export async function receiveFromClient<T>(
  c: Context,
  logger: Logger,
  expectedBytes: number,
  receive: () => Promise<T>,
): Promise<T> {
  const watch = watchClientEnd(c, expectedBytes);
  try {
    return await receive();
  } catch (error) {
    const ended = watch.outcome();
    if (!ended) throw error;
    logger.info(
      { requestId: requestIdOf(c), path: c.req.path, expectedBytes },
      "upload ended by the client before its body was complete",
    );
    if (ended === "answered") throw shortBodyError(expectedBytes);
    throw error instanceof PublisherError
      ? error
      : new PublisherError(
          "INCOMPLETE_UPLOAD",
          "The client closed the connection before the body was complete; nothing was stored.",
          { expectedBytes },
        );
  } finally {
    watch.stop();
  }
}

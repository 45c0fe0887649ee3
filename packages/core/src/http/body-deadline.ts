import type { HttpBindings } from "@hono/node-server";
import type { MiddlewareHandler } from "hono";

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

export type BodyDeadlineOptions = {
  /** How long a request may take to send its whole body, from its headers on. */
  timeoutMs: number;
  /** Requests left to a guard of their own (uploads, which stream large bodies under their own limits). */
  skip?: (path: string, method: string) => boolean;
};

/**
 * A floor under how fast a request's (small, JSON) body must arrive: when it is not all in within
 * `timeoutMs` of the headers, the request is answered 408 `REQUEST_TIMEOUT` in the platform's
 * body, with `Connection: close`, and the connection is closed. A client trickling a byte a
 * second holds nothing longer than that, whether or not a route has started reading (a route
 * that checks a key first reads the body later). Served outside Node (`app.request`), nothing to do.
 */
export function bodyDeadline(options: BodyDeadlineOptions): MiddlewareHandler<{ Bindings: HttpBindings }> {
  return async (c, next) => {
    const { incoming, outgoing } = (c.env ?? {}) as Partial<HttpBindings>;
    const method = c.req.method;
    if (!incoming || !outgoing || incoming.complete || !BODY_METHODS.has(method)) return next();
    if (options.skip?.(c.req.path, method)) return next();
    const timer = setTimeout(() => {
      if (incoming.complete || outgoing.headersSent || outgoing.writableEnded) return;
      const body = JSON.stringify({
        error: "REQUEST_TIMEOUT",
        message: `The request body did not arrive within ${options.timeoutMs} ms.`,
      });
      outgoing.writeHead(408, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        connection: "close",
      });
      outgoing.end(body, () => incoming.socket.destroy());
    }, options.timeoutMs);
    timer.unref();
    const clear = () => clearTimeout(timer);
    outgoing.once("finish", clear);
    outgoing.once("close", clear);
    await next();
  };
}

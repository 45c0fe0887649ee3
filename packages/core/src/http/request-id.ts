import type { MiddlewareHandler } from "hono";

const SANE_ID = /^[\w\-=.:]{1,128}$/;

/**
 * Gives every request an id (`c.get("requestId")`) and every response an
 * `x-request-id` header: the caller's, when it sent a sane one, otherwise a new
 * UUID. Reads Node's already parsed headers when served by `@hono/node-server`,
 * which spares building a `Headers` object on every request.
 */
export function requestId(): MiddlewareHandler {
  return async (c, next) => {
    const incoming = (
      c.env as { incoming?: { headers: Record<string, string | string[] | undefined> } } | undefined
    )?.incoming;
    const sent = incoming ? incoming.headers["x-request-id"] : c.req.header("x-request-id");
    const id = typeof sent === "string" && SANE_ID.test(sent) ? sent : crypto.randomUUID();
    c.set("requestId", id);
    c.header("x-request-id", id);
    await next();
  };
}

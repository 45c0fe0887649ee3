import type { Context } from "hono";

type NodeIncoming = { headers: Record<string, string | string[] | undefined> };

/**
 * A request header's value. Served by `@hono/node-server` it reads Node's already
 * parsed headers, sparing the `Headers` object that `c.req.header()` builds for
 * every request; elsewhere (tests through `app.request`) it falls back to that.
 * Repeated headers are joined with ", " as the Fetch API does.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: NodeIncoming } | undefined)?.incoming;
  if (!incoming) return c.req.header(name);
  const value = incoming.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(", ") : value;
}

type NodeOutgoing = { setHeader(name: string, value: string | string[]): void };

/**
 * Sets a response header. Served by `@hono/node-server` it goes straight onto Node's
 * response (no `Headers` object; Node merges it into what the handler answers);
 * elsewhere it goes through `c.header()`. Several values become several header lines.
 */
export function setResponseHeader(c: Context, name: string, value: string | string[]): void {
  const outgoing = (c.env as { outgoing?: NodeOutgoing } | undefined)?.outgoing;
  if (outgoing) {
    outgoing.setHeader(name, value);
    return;
  }
  if (typeof value === "string") c.header(name, value);
  else for (const line of value) c.header(name, line, { append: true });
}

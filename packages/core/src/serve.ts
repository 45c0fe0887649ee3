import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Http2Bindings, type HttpBindings, serve } from "@hono/node-server";
import type { Env, Hono, Schema } from "hono";
import { answerClientError } from "./http/client-error.ts";

export type RunningServer = {
  /** Base URL, e.g. `http://127.0.0.1:3001`. */
  url: string;
  port: number;
  /** Stops accepting connections and waits for requests in flight (idle sockets close at once). */
  close(): Promise<void>;
};

/**
 * A connection that sends nothing and is sent nothing this long is closed (a stalled body, say):
 * longer than the longest wait a service may be configured for (an upstream or a publish, 300 s).
 */
export const IDLE_TIMEOUT_MS = 330_000;

/**
 * Serves a Hono app on `host:port` (port 0 picks a free one) and resolves once it listens. A
 * request may take as long as it keeps moving (Node's default would cut any request at 300 s: a
 * 512 MB upload slower than 1.7 MB/s), and a connection idle for `idleTimeoutMs` is closed
 * (headers must still arrive within Node's 60 s). A request Node refuses before the app sees it
 * (headers over its limit, malformed HTTP, headers too slow) is answered with the platform's JSON
 * error and `Connection: close` ({@link answerClientError}), not Node's empty status line.
 */
export function serveApp<E extends Env, S extends Schema, BasePath extends string>(
  app: Hono<E, S, BasePath>,
  options: { host: string; port: number; idleTimeoutMs?: number },
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    // Node's request and response go to the app as its bindings (`c.env.incoming`, `c.env.outgoing`).
    const fetch = (request: Request, bindings: HttpBindings | Http2Bindings) => app.fetch(request, bindings);
    const server = serve({ fetch, hostname: options.host, port: options.port }) as Server;
    server.requestTimeout = 0;
    server.setTimeout(options.idleTimeoutMs ?? IDLE_TIMEOUT_MS);
    server.on("clientError", answerClientError);
    server.once("error", reject);
    server.once("listening", () => {
      const { port } = server.address() as AddressInfo;
      const close = () =>
        new Promise<void>((done) => {
          const force = setTimeout(
            () => (server as { closeAllConnections?: () => void }).closeAllConnections?.(),
            5000,
          );
          server.close(() => {
            clearTimeout(force);
            done();
          });
          (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
        });
      resolve({ url: `http://${options.host}:${port}`, port, close });
    });
  });
}

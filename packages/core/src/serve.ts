import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";

export type RunningServer = {
  /** Base URL, e.g. `http://127.0.0.1:3001`. */
  url: string;
  port: number;
  /** Stops accepting connections and waits for requests in flight (idle sockets close at once). */
  close(): Promise<void>;
};

/** Serves a Hono app on `host:port` (port 0 picks a free one) and resolves once it listens. */
export function serveApp(app: Hono<never>, options: { host: string; port: number }): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: options.host, port: options.port });
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

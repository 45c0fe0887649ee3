import { serveApp } from "@app/core";
import type { Database } from "@app/db";
import { gatewayHarness, type Harness, type HarnessOptions } from "./harness.ts";

export type ServedGateway = Harness & { url: string };

/** The gateway app served on a loopback port (for the official MCP client and raw HTTP). */
export async function serveGateway(db: Database, options: HarnessOptions = {}): Promise<ServedGateway> {
  const h = gatewayHarness(db, options);
  const server = await serveApp(h.app as never, { host: "127.0.0.1", port: 0 });
  return {
    ...h,
    url: server.url,
    async close() {
      await server.close();
      await h.close();
    },
  };
}

/** The headers of a raw MCP POST that the SDK's transport accepts. */
export const MCP_POST_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

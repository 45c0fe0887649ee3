import { requestHeader } from "@app/core";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createMcpServer } from "../mcp/server.ts";
import { authenticate } from "../runner/authenticate.ts";
import type { GatewayDeps } from "../runner/deps.ts";
import { UPSTREAM_KEY_HEADER } from "./run.ts";
import type { GatewayApp } from "./shared.ts";

/** The MCP endpoint's path. */
export const MCP_PATH = "/mcp";

/**
 * `/mcp`: the MCP server over Streamable HTTP, stateless. Every request needs the gateway key as
 * `Authorization: Bearer` (401 otherwise) and gets a fresh server and transport (a server or a
 * stateless transport cannot be shared across requests), answering JSON (no SSE stream). Without
 * sessions there is no stream to open or close, so GET and DELETE are 405.
 */
export function registerMcp(app: GatewayApp, deps: GatewayDeps): void {
  app.on(["GET", "POST", "DELETE"], MCP_PATH, async (c) => {
    const caller = await authenticate(deps.accounts, requestHeader(c, "authorization"));
    if (c.req.method !== "POST") {
      return c.json(
        {
          jsonrpc: "2.0",
          error: { code: -32000, message: "Method not allowed: this MCP server is stateless." },
          id: null,
        },
        405,
        { Allow: "POST" },
      );
    }
    const server = createMcpServer(deps, {
      caller,
      headerUpstreamKey: requestHeader(c, UPSTREAM_KEY_HEADER),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      void server.close();
    }
  });
}

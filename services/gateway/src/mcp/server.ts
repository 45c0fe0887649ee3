import { ApiError, type ErrorBody, z } from "@app/core";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { RunInputSchema } from "../domain/tool-input.ts";
import type { GatewayDeps } from "../runner/deps.ts";
import { inspectTool } from "../runner/inspect-tool.ts";
import { runTool } from "../runner/run-tool.ts";
import type { Caller } from "../store/accounts.ts";

/** Who is calling, for one MCP request: the gateway key's caller and the request's X-Upstream-Key. */
export type McpCallContext = { caller: Caller; headerUpstreamKey: string | undefined };

const toolFields = {
  provider: z.string().min(1).max(64).describe("The provider's fixed id (shop, publisher, markets)"),
  endpoint: z.string().min(1).max(256).describe("The tool's upstream path template, e.g. /api/v1/posts/{id}"),
  method: z.string().min(1).max(16).default("GET").describe("GET for every tool here"),
};

/** A tool result carrying `value` as JSON text and as structured content. */
function result(value: Record<string, unknown>, isError = false): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(value) }],
    structuredContent: value,
    ...(isError ? { isError: true } : {}),
  };
}

/** Runs a tool handler, turning a gateway error into an `isError` result with the same body as HTTP. */
async function answer(deps: GatewayDeps, work: () => unknown): Promise<CallToolResult> {
  try {
    return result((await work()) as Record<string, unknown>);
  } catch (error) {
    if (error instanceof ApiError) return result(error.toBody(), true);
    deps.logger.error({ err: error }, "unhandled error in an MCP tool");
    const body: ErrorBody = { error: "INTERNAL", message: "Something went wrong on our side." };
    return result(body, true);
  }
}

function catalogue(deps: GatewayDeps): string {
  return deps.registry
    .tools()
    .map((tool) => `- ${tool.provider.id} ${tool.method} ${tool.endpoint}: ${tool.name}`)
    .join("\n");
}

/**
 * A fresh MCP server for one request (stateless Streamable HTTP), offering exactly `inspect` and
 * `run`, whose arguments mirror the HTTP bodies and whose results carry the same JSON.
 */
export function createMcpServer(deps: GatewayDeps, context: McpCallContext): McpServer {
  const server = new McpServer({ name: "tool-gateway", version: "1.0.0" });
  const tools = catalogue(deps);
  server.registerTool(
    "inspect",
    {
      description: `Describe one tool: its input schemas (JSON Schema), price and whether it needs your upstream key. Tools:\n${tools}`,
      inputSchema: toolFields,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => answer(deps, () => inspectTool(deps.registry, args)),
  );
  server.registerTool(
    "run",
    {
      description: `Run one tool with input {queryParams?, pathParams?}; answers the run envelope (runId, upstream.status, output, cost, balance, durationMs). A tool that needs your upstream key takes it from the X-Upstream-Key header of the MCP request or from upstreamKey. Tools:\n${tools}`,
      inputSchema: {
        ...toolFields,
        input: RunInputSchema.default({}).describe("{queryParams?, pathParams?}, as inspect describes them"),
        upstreamKey: z
          .string()
          .optional()
          .describe(
            "Your key for the tool's upstream, if the X-Upstream-Key header is not set; used once, never stored",
          ),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ upstreamKey, ...request }) =>
      answer(deps, () => runTool(deps, context.caller, request, context.headerUpstreamKey ?? upstreamKey)),
  );
  return server;
}

import { ApiError, type ErrorBody, z } from "@app/core";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type AnySchema,
  normalizeObjectSchema,
  safeParseAsync,
} from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { RunInputSchema } from "../domain/tool-input.ts";
import type { ToolRegistry } from "../registry/registry.ts";
import type { GatewayDeps } from "../runner/deps.ts";
import { inspectTool } from "../runner/inspect-tool.ts";
import { plainEnvelope, runTool } from "../runner/run-tool.ts";
import type { Caller } from "../store/accounts.ts";

/** Who is calling, for one MCP request: the gateway key's caller and the request's X-Upstream-Key. */
export type McpCallContext = { caller: Caller; headerUpstreamKey: string | undefined };

const toolFields = {
  provider: z.string().min(1).max(64).describe("The provider's fixed id (shop, publisher, markets)"),
  endpoint: z.string().min(1).max(256).describe("The tool's upstream path template, e.g. /api/v1/posts/{id}"),
  method: z.string().min(1).max(16).default("GET").describe("GET for every tool here"),
};

/**
 * The two tools' arguments, as strict objects: a key the tool does not take (`inputs` for
 * `input`) is refused, as `/v1/run` and `/v1/inspect` refuse it, rather than dropped and the tool
 * run without it. Built once; the SDK validates with them and lists them as JSON Schema
 * (`additionalProperties: false`).
 */
const INSPECT_ARGUMENTS = z.object(toolFields).strict();
const RUN_ARGUMENTS = z
  .object({
    ...toolFields,
    input: RunInputSchema.default({}).describe("{queryParams?, pathParams?}, as inspect describes them"),
    upstreamKey: z
      .string()
      .optional()
      .describe(
        "Your key for the tool's upstream, if the X-Upstream-Key header is not set; used once, never stored",
      ),
  })
  .strict();

/** An object schema as the SDK normalises it (it has one for any object schema). */
function sdkObjectSchema(schema: z.ZodObject): AnySchema {
  const normalized = normalizeObjectSchema(schema);
  if (!normalized) throw new Error("The SDK normalised no schema from an object schema.");
  return normalized;
}

/** The object schemas the SDK validates arguments with, made the SDK's way, for the direct path. */
const ARGUMENT_SCHEMAS = {
  inspect: sdkObjectSchema(INSPECT_ARGUMENTS),
  run: sdkObjectSchema(RUN_ARGUMENTS),
};

export type McpToolName = keyof typeof ARGUMENT_SCHEMAS;

type InspectArgs = { provider: string; endpoint: string; method: string };
type RunArgs = InspectArgs & { input: unknown; upstreamKey?: string };

/** A tool result carrying `value` as JSON text and as structured content. */
function result(value: Record<string, unknown>, isError = false): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(value) }],
    structuredContent: value,
    ...(isError ? { isError: true } : {}),
  };
}

/** The body of a tool's failure: a gateway error's own body, or an opaque INTERNAL (logged). */
function failureBody(deps: GatewayDeps, error: unknown): ErrorBody {
  if (error instanceof ApiError) return error.toBody();
  deps.logger.error({ err: error }, "unhandled error in an MCP tool");
  return { error: "INTERNAL", message: "Something went wrong on our side." };
}

/** Runs a tool handler, turning a gateway error into an `isError` result with the same body as HTTP. */
async function answer(deps: GatewayDeps, work: () => unknown): Promise<CallToolResult> {
  try {
    return result((await work()) as Record<string, unknown>);
  } catch (error) {
    return result(failureBody(deps, error), true);
  }
}

const catalogues = new WeakMap<ToolRegistry, { inspect: string; run: string }>();

/** The two tools' descriptions, listing the registry's tools: built once per registry. */
function descriptions(registry: ToolRegistry): { inspect: string; run: string } {
  let built = catalogues.get(registry);
  if (!built) {
    const tools = registry
      .tools()
      .map((tool) => `- ${tool.provider.id} ${tool.method} ${tool.endpoint}: ${tool.name}`)
      .join("\n");
    built = {
      inspect: `Describe one tool: its input schemas (JSON Schema), price and whether it needs your upstream key. Tools:\n${tools}`,
      run: `Run one tool with input {queryParams?, pathParams?}; answers the run envelope (runId, upstream.status, output, cost, balance, durationMs). A tool that needs your upstream key takes it from the X-Upstream-Key header of the MCP request or from upstreamKey. Tools:\n${tools}`,
    };
    catalogues.set(registry, built);
  }
  return built;
}

/**
 * A fresh MCP server for one request (stateless Streamable HTTP), offering exactly `inspect` and
 * `run`, whose arguments mirror the HTTP bodies and whose results carry the same JSON. Everything
 * it is made of (shapes, descriptions) is built once; a server itself cannot be shared.
 */
export function createMcpServer(deps: GatewayDeps, context: McpCallContext): McpServer {
  const server = new McpServer({ name: "tool-gateway", version: "1.0.0" });
  const text = descriptions(deps.registry);
  server.registerTool(
    "inspect",
    {
      description: text.inspect,
      inputSchema: INSPECT_ARGUMENTS,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => answer(deps, () => inspectTool(deps.registry, args)),
  );
  server.registerTool(
    "run",
    {
      description: text.run,
      inputSchema: RUN_ARGUMENTS,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ upstreamKey, ...request }) =>
      answer(deps, async () =>
        plainEnvelope(
          (await runTool(deps, context.caller, request, context.headerUpstreamKey ?? upstreamKey)).envelope,
        ),
      ),
  );
  return server;
}

/** A `tools/call` result as JSON text: `valueJson` (an object's JSON) as text and structured content. */
function resultJson(valueJson: string, isError: boolean): string {
  return (
    `{"content":[{"type":"text","text":${JSON.stringify(valueJson)}}],"structuredContent":${valueJson}` +
    `${isError ? ',"isError":true' : ""}}`
  );
}

/**
 * The result of `tools/call` for `inspect` or `run` as JSON text, exactly what the SDK's server
 * would answer (the same argument schemas, made the SDK's way; the same handlers; the same result
 * shape), or undefined when the arguments do not validate: the SDK then answers its own error.
 * A run's envelope is spliced in as it was built (its output the upstream's checked JSON text).
 */
export async function callToolDirectly(
  deps: GatewayDeps,
  context: McpCallContext,
  name: McpToolName,
  args: Record<string, unknown> | undefined,
): Promise<string | undefined> {
  const parsed = await safeParseAsync(ARGUMENT_SCHEMAS[name], args ?? {});
  if (!parsed.success) return undefined;
  try {
    if (name === "inspect") {
      return resultJson(JSON.stringify(inspectTool(deps.registry, parsed.data as InspectArgs)), false);
    }
    const { upstreamKey, ...request } = parsed.data as RunArgs;
    const ran = await runTool(deps, context.caller, request, context.headerUpstreamKey ?? upstreamKey);
    return resultJson(ran.json, false);
  } catch (error) {
    return resultJson(JSON.stringify(failureBody(deps, error)), true);
  }
}

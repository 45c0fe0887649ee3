import { ApiError, requestHeader, requestIdOf } from "@app/core";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "hono";
import { GatewayError } from "../errors.ts";
import { refusalOf } from "../mcp/message-checks.ts";
import {
  callToolDirectly,
  createMcpServer,
  HeldResults,
  type McpCallContext,
  type McpToolName,
} from "../mcp/server.ts";
import type { GatewayDeps } from "../runner/deps.ts";
import { UPSTREAM_KEY_HEADER } from "./run.ts";
import { type GatewayApp, gatewayKeyGuard } from "./shared.ts";

/** The MCP endpoint's path. */
export const MCP_PATH = "/mcp";

/** The only method `/mcp` takes: without sessions there is no stream to open (GET) or close (DELETE). */
const MCP_ALLOW = "POST";

/**
 * `/mcp`: the MCP server over Streamable HTTP, stateless. A POST needs the gateway key as
 * `Authorization: Bearer` (401 otherwise) and a JSON body (415 otherwise, the platform's error
 * body); every other method is 405 with `Allow: POST`, whatever it carries. A message the route
 * refuses itself ({@link refusalOf}: an empty batch, invalid `tools/call` params, a `__proto__`
 * argument) is answered at once; a `tools/call` of `inspect` or `run` is answered directly
 * ({@link directToolsCall}); every other request gets a fresh SDK server and transport (a server
 * or a stateless transport cannot be shared across requests), answering JSON (no SSE stream).
 */
export function registerMcp(app: GatewayApp, deps: GatewayDeps): void {
  app.post(MCP_PATH, gatewayKeyGuard(deps), async (c) => {
    if (!isJsonContentType(requestHeader(c, "content-type") ?? null)) {
      throw new GatewayError(
        "UNSUPPORTED_MEDIA_TYPE",
        "An MCP message is JSON: send Content-Type: application/json.",
      );
    }
    const context: McpCallContext = {
      caller: c.var.caller,
      headerUpstreamKey: requestHeader(c, UPSTREAM_KEY_HEADER),
      requestId: requestIdOf(c),
    };
    if (!directlyAnswerable(c)) return answerWithSdk(deps, context, c.req.raw);
    const text = await c.req.text();
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      // The SDK answers its own parse error, from the body as it came.
      return answerWithSdk(
        deps,
        context,
        new Request(c.req.raw.url, { method: "POST", headers: c.req.raw.headers, body: text }),
      );
    }
    const refusal = refusalOf(message);
    if (refusal !== undefined)
      return c.body(refusal.body, refusal.status, { "Content-Type": "application/json" });
    const direct = await directToolsCall(deps, context, message);
    if (direct !== undefined) return c.body(direct, 200, { "Content-Type": "application/json" });
    return answerWithSdk(deps, context, c.req.raw, message);
  });
  app.all(MCP_PATH, () => {
    throw new ApiError(
      "METHOD_NOT_ALLOWED",
      `This MCP server is stateless: it takes ${MCP_ALLOW} only.`,
      { allow: [MCP_ALLOW] },
      { Allow: MCP_ALLOW },
    );
  });
}

/** One request through the SDK: a fresh server and stateless transport, JSON responses. */
export async function answerWithSdk(
  deps: GatewayDeps,
  context: McpCallContext,
  request: Request,
  parsedBody?: unknown,
): Promise<Response> {
  const results = new HeldResults();
  const server = createMcpServer(deps, context, results);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  let response: Response;
  try {
    response = await transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
  } finally {
    void server.close();
  }
  if (results.size === 0) return response;
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  const body = results.splice(await response.text(), deps.logger);
  return new Response(body, { status: response.status, headers });
}

/**
 * Whether the headers of a JSON POST are ones the SDK's stateless transport accepts for a POST it
 * then handles (the same checks, by the SDK's own functions): `Accept` lists both JSON and SSE,
 * the `MCP-Protocol-Version` (if any) is supported. Any other request goes to the SDK, which
 * answers its 406 or 400.
 */
function directlyAnswerable(c: Context): boolean {
  const accept = requestHeader(c, "accept");
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return false;
  const version = requestHeader(c, "mcp-protocol-version");
  return version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const PARAMS_KEYS = new Set(["name", "arguments"]);

/**
 * The JSON-RPC response to a single `tools/call` request of `inspect` or `run`, as JSON text,
 * built as the SDK's stateless server builds it (`{result, jsonrpc, id}`), or undefined for
 * anything else: other methods, batches, notifications, `_meta` or task parameters, an unknown
 * tool, arguments that do not validate. Those go to the SDK, unchanged. It spares the request a
 * server, a transport and the SDK's schema passes over the message and the result, and splices
 * the run's envelope (and its upstream's output) instead of serialising it twice.
 */
export async function directToolsCall(
  deps: GatewayDeps,
  context: McpCallContext,
  message: unknown,
): Promise<string | undefined> {
  if (!isPlainObject(message) || message.jsonrpc !== "2.0" || message.method !== "tools/call")
    return undefined;
  const { id, params } = message;
  if (!(typeof id === "string" || Number.isSafeInteger(id))) return undefined;
  if (!Object.keys(message).every((key) => REQUEST_KEYS.has(key))) return undefined;
  if (!isPlainObject(params) || !Object.keys(params).every((key) => PARAMS_KEYS.has(key))) return undefined;
  const { name, arguments: args } = params;
  if (name !== "inspect" && name !== "run") return undefined;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  const result = await callToolDirectly(deps, context, name as McpToolName, args);
  if (result === undefined) return undefined;
  return `{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

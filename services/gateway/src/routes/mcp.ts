import { requestHeader } from "@app/core";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "hono";
import { callToolDirectly, createMcpServer, type McpCallContext, type McpToolName } from "../mcp/server.ts";
import type { GatewayDeps } from "../runner/deps.ts";
import { UPSTREAM_KEY_HEADER } from "./run.ts";
import { type GatewayApp, gatewayKeyGuard } from "./shared.ts";

/** The MCP endpoint's path. */
export const MCP_PATH = "/mcp";

/**
 * `/mcp`: the MCP server over Streamable HTTP, stateless. Every request needs the gateway key as
 * `Authorization: Bearer` (401 otherwise). Without sessions there is no stream to open or close,
 * so GET and DELETE are 405. A `tools/call` of `inspect` or `run` is answered directly
 * ({@link directToolsCall}); every other request gets a fresh SDK server and transport (a server
 * or a stateless transport cannot be shared across requests), answering JSON (no SSE stream).
 */
export function registerMcp(app: GatewayApp, deps: GatewayDeps): void {
  app.on(["GET", "POST", "DELETE"], MCP_PATH, gatewayKeyGuard(deps), async (c) => {
    const { caller } = c.var;
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
    const context: McpCallContext = { caller, headerUpstreamKey: requestHeader(c, UPSTREAM_KEY_HEADER) };
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
    const refusal = protoKeyRefusal(message);
    if (refusal !== undefined)
      return c.body(refusal.body, refusal.status, { "Content-Type": "application/json" });
    const direct = await directToolsCall(deps, context, message);
    if (direct !== undefined) return c.body(direct, 200, { "Content-Type": "application/json" });
    return answerWithSdk(deps, context, c.req.raw, message);
  });
}

/** One request through the SDK: a fresh server and stateless transport, JSON responses. */
export async function answerWithSdk(
  deps: GatewayDeps,
  context: McpCallContext,
  request: Request,
  parsedBody?: unknown,
): Promise<Response> {
  const server = createMcpServer(deps, context);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
  } finally {
    void server.close();
  }
}

/**
 * Whether the headers are ones the SDK's stateless transport accepts for a POST it then handles
 * (the same checks, by the SDK's own functions): `Accept` lists both JSON and SSE, the body is
 * JSON, the `MCP-Protocol-Version` (if any) is supported. Any other request goes to the SDK,
 * which answers its 406, 415 or 400.
 */
function directlyAnswerable(c: Context): boolean {
  const accept = requestHeader(c, "accept");
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return false;
  if (!isJsonContentType(requestHeader(c, "content-type") ?? null)) return false;
  const version = requestHeader(c, "mcp-protocol-version");
  return version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Whether `message` is a call of `inspect` or `run` whose arguments hold their own `__proto__` key. */
function callsWithProtoKey(message: unknown): boolean {
  if (!isPlainObject(message) || message.method !== "tools/call" || !isPlainObject(message.params))
    return false;
  const { name, arguments: args } = message.params;
  return (name === "inspect" || name === "run") && isPlainObject(args) && Object.hasOwn(args, "__proto__");
}

/**
 * The refusal of a call of `inspect` or `run` whose arguments hold a `__proto__` key: a key no
 * tool takes, which the strict argument schemas refuse and `/v1/run` refuses, but which the SDK's
 * parse of the request drops without a word before the tool sees its arguments (it would run
 * without it). A single call gets the `isError` result the SDK gives any unrecognised key; a
 * batch holding one, a JSON-RPC "Invalid params" error. Undefined when the message holds none (or
 * is a notification).
 */
function protoKeyRefusal(message: unknown): { status: 200 | 400; body: string } | undefined {
  if (Array.isArray(message)) {
    if (!message.some(callsWithProtoKey)) return undefined;
    const error = {
      code: -32602,
      message: 'Invalid params: the arguments of a tools/call hold "__proto__", which no tool takes.',
    };
    return { status: 400, body: JSON.stringify({ jsonrpc: "2.0", error, id: null }) };
  }
  if (!callsWithProtoKey(message)) return undefined;
  const { id, params } = message as { id?: unknown; params: { name: string } };
  // Without an id it is a notification, which the SDK answers 202 and never runs.
  if (!(typeof id === "string" || typeof id === "number")) return undefined;
  const text = `MCP error -32602: Input validation error: Invalid arguments for tool ${params.name}: Unrecognized key: "__proto__"`;
  const result = { content: [{ type: "text", text }], isError: true };
  return { status: 200, body: JSON.stringify({ result, jsonrpc: "2.0", id }) };
}

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

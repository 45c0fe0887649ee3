import { CallToolRequestSchema, isJSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";

/** A JSON-RPC answer the route gives itself, before any tool or the SDK sees the message. */
export type Refusal = { status: 200 | 400; body: string };

const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** A JSON-RPC error response as JSON text. */
const errorJson = (id: string | number | null, code: number, message: string) =>
  JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });

/** Whether `message` is a call of `inspect` or `run` whose arguments hold their own `__proto__` key. */
function callsWithProtoKey(message: unknown): boolean {
  if (!isPlainObject(message) || message.method !== "tools/call" || !isPlainObject(message.params))
    return false;
  const { name, arguments: args } = message.params;
  return (name === "inspect" || name === "run") && isPlainObject(args) && Object.hasOwn(args, "__proto__");
}

/**
 * Why a JSON-RPC request of `tools/call` has params the SDK refuses (`arguments` that are not an
 * object, no tool name), in words; undefined when it has none, or is no such request. The SDK
 * answers those with an "Internal error" holding its raw validation report.
 */
function invalidCallParams(message: unknown): string | undefined {
  if (!isPlainObject(message) || message.method !== "tools/call") return undefined;
  const { params } = message;
  // The usual call is valid at a glance (the schema's every field, or its absence): no schema pass.
  const plain =
    isPlainObject(params) &&
    typeof params.name === "string" &&
    (params.arguments === undefined || isPlainObject(params.arguments)) &&
    params._meta === undefined &&
    params.task === undefined;
  if (plain || !isJSONRPCRequest(message)) return undefined;
  const parsed = CallToolRequestSchema.safeParse(message);
  if (parsed.success) return undefined;
  const reasons = parsed.error.issues.map((issue) => {
    const path = issue.path.slice(1).join(".");
    if (path === "arguments") return '"arguments" must be an object of the tool\'s arguments by name';
    return `${path || "params"}: ${issue.message}`;
  });
  return `Invalid params: ${[...new Set(reasons)].join("; ")}.`;
}

/**
 * The route's own refusal of a JSON-RPC message, or undefined when it has none:
 *
 * - An empty batch is "Invalid Request" (`-32600`), as JSON-RPC 2.0 says, where the SDK would
 *   answer 202 as if it held only notifications.
 * - A call of `inspect` or `run` whose arguments hold a `__proto__` key: a key no tool takes,
 *   which the strict argument schemas refuse and `/v1/run` refuses, but which the SDK's parse of
 *   the request drops without a word before the tool sees its arguments (it would run without
 *   it). A single call gets the `isError` result the SDK gives any unrecognised key.
 * - A `tools/call` whose params the SDK refuses is "Invalid params" (`-32602`) with a message
 *   that says why.
 *
 * In a batch, a message refused refuses the batch (400, `id: null`). A notification (no id) is
 * left to the SDK, which answers 202 and never runs it.
 */
export function refusalOf(message: unknown): Refusal | undefined {
  if (Array.isArray(message)) {
    if (message.length === 0) {
      return { status: 400, body: errorJson(null, INVALID_REQUEST, "Invalid Request: the batch is empty.") };
    }
    if (message.some(callsWithProtoKey)) {
      const text = 'Invalid params: the arguments of a tools/call hold "__proto__", which no tool takes.';
      return { status: 400, body: errorJson(null, INVALID_PARAMS, text) };
    }
    const invalid = message.map(invalidCallParams).find((reason) => reason !== undefined);
    return invalid === undefined
      ? undefined
      : { status: 400, body: errorJson(null, INVALID_PARAMS, invalid) };
  }
  const invalid = invalidCallParams(message);
  if (invalid !== undefined) {
    const { id } = message as { id: string | number };
    return { status: 200, body: errorJson(id, INVALID_PARAMS, invalid) };
  }
  if (!callsWithProtoKey(message)) return undefined;
  const { id, params } = message as { id?: unknown; params: { name: string } };
  if (!(typeof id === "string" || typeof id === "number")) return undefined;
  const text = `MCP error -32602: Input validation error: Invalid arguments for tool ${params.name}: Unrecognized key: "__proto__"`;
  const result = { content: [{ type: "text", text }], isError: true };
  return { status: 200, body: JSON.stringify({ result, jsonrpc: "2.0", id }) };
}

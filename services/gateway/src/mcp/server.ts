import { randomUUID } from "node:crypto";
import { ApiError, type ErrorBody, z } from "@app/core";
import { parseIdempotencyKey } from "@app/edge";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type AnySchema,
  normalizeObjectSchema,
  safeParseAsync,
} from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { RunInputSchema } from "../domain/tool-input.ts";
import type { RegisteredTool } from "../registry/types.ts";
import type { GatewayDeps } from "../runner/deps.ts";
import { findProvider } from "../runner/find-provider.ts";
import { visibleTo, visibleTools } from "../runner/find-tool.ts";
import { inspectTool } from "../runner/inspect-tool.ts";
import type { Caller } from "../store/accounts.ts";
import { type RunCallArgs, runCall } from "./run-call.ts";

/**
 * Who is calling, for one MCP request: the gateway key's caller and the request's X-Upstream-Key,
 * and the request's id (recorded with its runs).
 */
export type McpCallContext = { caller: Caller; headerUpstreamKey: string | undefined; requestId?: string };

const toolFields = {
  provider: z
    .string()
    .min(1)
    .max(64)
    .describe("The provider's fixed id, as this tool's description lists them"),
  endpoint: z.string().min(1).max(256).describe("The tool's upstream path template, e.g. /api/v1/posts/{id}"),
  method: z.string().min(1).max(16).default("GET").describe("GET for every tool here"),
};

/**
 * The two tools' arguments, as strict objects: a key the tool does not take (`inputs` for
 * `input`) is refused, as `/v1/run` and `/v1/inspect` refuse it, rather than dropped and the tool
 * run without it. Built once; the SDK validates with them and lists them as JSON Schema
 * (`additionalProperties: false`).
 */
const INSPECT_ARGUMENTS = z
  .object({
    ...toolFields,
    endpoint: toolFields.endpoint
      .optional()
      .describe(
        "The tool's upstream path template, e.g. /api/v1/posts/{id}; leave it out to list the provider's tools",
      ),
    method: toolFields.method.describe(
      "The tool's method, with endpoint (GET for every tool here); unused without it",
    ),
  })
  .strict();

/** What a well-formed `idempotencyKey` is: the `Idempotency-Key` header's rule, as the refusal says it. */
const IDEMPOTENCY_KEY_RULE =
  'As the Idempotency-Key header, idempotencyKey must be 1 to 255 visible ASCII characters, or a Structured Field string of 1 to 255 characters ("…")';

/**
 * `idempotencyKey`: validated and read by the header's own parser (`parseIdempotencyKey`), so a
 * key means the same over MCP as in `Idempotency-Key` (`"k"` and `k` are one key). A malformed
 * one fails the arguments' validation: the `-32602` invalid-params result any malformed argument
 * gets, on both paths, before anything runs or is counted.
 */
const IdempotencyKeyArgument = z
  .string()
  .transform((value, context) => {
    const key = parseIdempotencyKey(value);
    if (key === undefined) context.addIssue({ code: "custom", message: IDEMPOTENCY_KEY_RULE });
    return key ?? z.NEVER;
  })
  .optional()
  .describe(
    "Makes a retry safe, as the Idempotency-Key header of /v1/run (the same keys, shared with it): the same key with the same run answers the stored result, not run or charged again; with another run it is refused",
  );

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
    idempotencyKey: IdempotencyKeyArgument,
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

type InspectArgs = { provider: string; endpoint?: string; method: string };

/** The body of a tool's failure: a gateway error's own body, or an opaque INTERNAL (logged). */
function failureBody(deps: GatewayDeps, error: unknown): ErrorBody {
  if (error instanceof ApiError) return error.toBody();
  deps.logger.error({ err: error }, "unhandled error in an MCP tool");
  return { error: "INTERNAL", message: "Something went wrong on our side." };
}

/** A `tools/call` result as JSON text: `valueJson` (an object's JSON) as text and structured content. */
function resultJson(valueJson: string, isError: boolean): string {
  return (
    `{"content":[{"type":"text","text":${JSON.stringify(valueJson)}}],"structuredContent":${valueJson}` +
    `${isError ? ',"isError":true' : ""}}`
  );
}

/**
 * What `inspect` answers: with an endpoint, that tool described (`inspectTool`, 404
 * `TOOL_NOT_FOUND`); without one, the provider and its tools as `GET /v1/providers/{id}` answers
 * them (`findProvider`, 404 `PROVIDER_NOT_FOUND`). Either shows only what the caller's key may use.
 */
function inspection(deps: GatewayDeps, context: McpCallContext, args: InspectArgs): unknown {
  const { provider, endpoint, method } = args;
  if (endpoint === undefined)
    return findProvider(deps.registry, provider, { allows: visibleTo(context.caller) });
  return inspectTool(deps.registry, { provider, endpoint, method }, context.caller);
}

/**
 * The result of a call of `inspect` or `run` whose arguments validated, as JSON text: the one
 * answer of both paths (the direct one and the SDK's). A run's envelope is spliced in as it was
 * built, its output the upstream's checked JSON text, never parsed into a value and serialised
 * again: no nesting can overflow a serialiser, and every number is written as the upstream wrote
 * it. A gateway failure is an `isError` result with the same body as over HTTP.
 */
async function toolResultJson(
  deps: GatewayDeps,
  context: McpCallContext,
  name: McpToolName,
  args: unknown,
): Promise<string> {
  try {
    if (name === "inspect")
      return resultJson(JSON.stringify(inspection(deps, context, args as InspectArgs)), false);
    const ran = await runCall(deps, context, args as RunCallArgs);
    return resultJson(ran.json, ran.isError);
  } catch (error) {
    return resultJson(JSON.stringify(failureBody(deps, error)), true);
  }
}

/**
 * The tool results of one request through the SDK. The SDK serialises what a tool returns, so a
 * tool hands it a placeholder ({@link hold}) and the SDK's answer gets each placeholder replaced
 * by the result's JSON text ({@link splice}): the SDK's path answers the same bytes as the direct
 * path, and never holds the output as a value.
 */
export class HeldResults {
  private readonly results = new Map<string, string>();

  /** A placeholder result for the SDK to answer, standing for `json` (a result's JSON text). */
  hold(json: string): CallToolResult {
    const token = `tool-result:${randomUUID()}`;
    this.results.set(token, json);
    return { content: [{ type: "text", text: token }] };
  }

  get size(): number {
    return this.results.size;
  }

  /**
   * The SDK's answer (JSON text) with each placeholder, as the SDK writes it, replaced by the
   * result it stands for. A placeholder missing from it (a response the SDK dropped) is logged.
   */
  splice(answer: string, logger: GatewayDeps["logger"]): string {
    let spliced = answer;
    for (const [token, json] of this.results) {
      const placeholder = `{"content":[{"type":"text","text":"${token}"}]}`;
      const at = spliced.indexOf(placeholder);
      if (at === -1) {
        logger.warn({ token }, "a tool result is missing from the MCP SDK's answer");
        continue;
      }
      spliced = spliced.slice(0, at) + json + spliced.slice(at + placeholder.length);
    }
    return spliced;
  }
}

const catalogues = new WeakMap<readonly RegisteredTool[], { inspect: string; run: string }>();

/**
 * The two tools' descriptions, listing the tools the caller's key may use (`visibleTools`: a
 * limited key's list leaves out what it may not use): built once per list.
 */
function descriptions(visible: readonly RegisteredTool[]): { inspect: string; run: string } {
  let built = catalogues.get(visible);
  if (!built) {
    const tools = visible
      .map((tool) => `- ${tool.provider.id} ${tool.method} ${tool.endpoint}: ${tool.name}`)
      .join("\n");
    built = {
      inspect: `Describe one tool (provider, endpoint, method): its input schemas (JSON Schema), price and whether it needs your upstream key. With a provider and without endpoint, list that provider's tools, each described so. Tools:\n${tools}`,
      run: `Run one tool with input {queryParams?, pathParams?}; answers the run envelope (runId, upstream.status, output, cost, balance, durationMs). A tool that needs your upstream key takes it from the X-Upstream-Key header of the MCP request or from upstreamKey. Send idempotencyKey to make a retry safe: the same key and run answer the stored result, run and charged once. Tools:\n${tools}`,
    };
    catalogues.set(visible, built);
  }
  return built;
}

/**
 * A fresh MCP server for one request (stateless Streamable HTTP), offering exactly `inspect` and
 * `run`, whose arguments mirror the HTTP bodies and whose results carry the same JSON (held in
 * `results` for the answer to splice in). Everything it is made of (shapes, descriptions) is
 * built once; a server itself cannot be shared.
 */
export function createMcpServer(deps: GatewayDeps, context: McpCallContext, results: HeldResults): McpServer {
  const server = new McpServer({ name: "tool-gateway", version: "1.0.0" });
  const text = descriptions(visibleTools(deps.registry, context.caller));
  server.registerTool(
    "inspect",
    {
      description: text.inspect,
      inputSchema: INSPECT_ARGUMENTS,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => results.hold(await toolResultJson(deps, context, "inspect", args)),
  );
  server.registerTool(
    "run",
    {
      description: text.run,
      inputSchema: RUN_ARGUMENTS,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (args) => results.hold(await toolResultJson(deps, context, "run", args)),
  );
  return server;
}

/**
 * The result of `tools/call` for `inspect` or `run` as JSON text, exactly what the SDK's path
 * answers (the same argument schemas, made the SDK's way; the same result, {@link toolResultJson}),
 * or undefined when the arguments do not validate: the SDK then answers its own error.
 */
export async function callToolDirectly(
  deps: GatewayDeps,
  context: McpCallContext,
  name: McpToolName,
  args: Record<string, unknown> | undefined,
): Promise<string | undefined> {
  const parsed = await safeParseAsync(ARGUMENT_SCHEMAS[name], args ?? {});
  if (!parsed.success) return undefined;
  return toolResultJson(deps, context, name, parsed.data);
}

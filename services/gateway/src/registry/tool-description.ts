import { type UsdAmount, usd } from "../domain/money.ts";
import { type JsonSchema, toJsonSchema } from "../domain/tool-schema.ts";
import type { RegisteredTool } from "./types.ts";

/** What `inspect` answers about one tool, and what the catalog shows of each tool. */
export type ToolInspection = {
  provider: string;
  endpoint: string;
  method: string;
  description: string;
  input: { queryParams: JsonSchema; pathParams: JsonSchema };
  price: UsdAmount;
  upstreamKey: "required" | "none";
};

const rendered = new WeakMap<RegisteredTool, ToolInspection["input"]>();

/** A tool's input schemas as JSON Schema, rendered once per tool. */
function inputSchemas(tool: RegisteredTool): ToolInspection["input"] {
  let input = rendered.get(tool);
  if (!input) {
    input = { queryParams: toJsonSchema(tool.queryParams), pathParams: toJsonSchema(tool.pathParams) };
    rendered.set(tool, input);
  }
  return input;
}

/**
 * The description of one tool: its input schemas, its price, whether it needs an upstream key.
 * `inspect` and the catalog both answer with it, so a tool reads the same in either.
 */
export function describeTool(tool: RegisteredTool): ToolInspection {
  return {
    provider: tool.provider.id,
    endpoint: tool.endpoint,
    method: tool.method,
    description: tool.description,
    input: inputSchemas(tool),
    price: usd(tool.priceMicro),
    upstreamKey: tool.provider.upstreamKeyHeader === null ? "none" : "required",
  };
}

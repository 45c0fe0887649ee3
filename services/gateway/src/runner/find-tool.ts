import { GatewayError } from "../errors.ts";
import type { ToolRegistry } from "../registry/registry.ts";
import type { RegisteredTool } from "../registry/types.ts";

/** The tool a run or an inspect names; 404 `TOOL_NOT_FOUND` listing what the caller could have meant. */
export function findTool(
  registry: ToolRegistry,
  request: { provider: string; endpoint: string; method: string },
): RegisteredTool {
  const tool = registry.find(request.provider, request.endpoint, request.method);
  if (tool) return tool;
  throw new GatewayError(
    "TOOL_NOT_FOUND",
    "No tool has this provider, endpoint and method. `endpoint` is the path template, e.g. /api/v1/posts/{id}.",
    { tools: registry.suggestions(request.provider) },
  );
}

import type { ToolRegistry } from "../registry/registry.ts";
import { describeTool, type ToolInspection } from "../registry/tool-description.ts";
import type { Caller } from "../store/accounts.ts";
import { findTool } from "./find-tool.ts";

export { describeTool, type ToolInspection };

/**
 * `inspect`: the tool a caller names, described, if the caller's key may use it; 404
 * `TOOL_NOT_FOUND` otherwise (over HTTP and MCP alike).
 */
export function inspectTool(
  registry: ToolRegistry,
  request: { provider: string; endpoint: string; method?: string },
  caller: Pick<Caller, "access">,
): ToolInspection {
  return describeTool(findTool(registry, { ...request, method: request.method ?? "GET" }, caller));
}

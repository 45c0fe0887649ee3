import { allowsTool } from "../domain/key-policy.ts";
import { GatewayError } from "../errors.ts";
import type { ToolRegistry } from "../registry/registry.ts";
import type { RegisteredTool } from "../registry/types.ts";
import type { Caller } from "../store/accounts.ts";

/**
 * Whether the caller's key may see and use a tool (its policy's allowlist; every tool without
 * one): the `allows` of the catalog, and what {@link findTool} checks for inspect and run.
 */
export function visibleTo(caller: Pick<Caller, "access">): (tool: RegisteredTool) => boolean {
  return (tool) =>
    allowsTool(caller.access, { provider: tool.provider.id, endpoint: tool.endpoint, method: tool.method });
}

/**
 * The tool a run or an inspect names, among those the caller's key may use; 404 `TOOL_NOT_FOUND`
 * listing what the caller could have meant otherwise. A tool outside the key's allowlist is
 * answered exactly as one never registered (and left out of the list), so a limited key cannot
 * learn that it exists.
 */
export function findTool(
  registry: ToolRegistry,
  request: { provider: string; endpoint: string; method: string },
  caller: Pick<Caller, "access">,
): RegisteredTool {
  const allows = visibleTo(caller);
  const tool = registry.find(request.provider, request.endpoint, request.method);
  if (tool && allows(tool)) return tool;
  throw new GatewayError(
    "TOOL_NOT_FOUND",
    // No example path here: a key limited to some tools must learn nothing of the others.
    "No tool has this provider, endpoint and method. `endpoint` is the path template as GET /v1/providers lists it, `{name}` for each path parameter.",
    { tools: registry.suggestions(request.provider, allows) },
  );
}

/** Lists of visible tools kept per registry, by allowlist; past this many the oldest goes. */
const MAX_LISTS = 1_000;

const visibleLists = new WeakMap<ToolRegistry, Map<string, readonly RegisteredTool[]>>();

/**
 * The registry's tools the caller's key may use, in declaration order: one list per distinct
 * allowlist, made once (what describes the tools to a caller, such as MCP's tool descriptions,
 * can then be made once per list).
 */
export function visibleTools(
  registry: ToolRegistry,
  caller: Pick<Caller, "access">,
): readonly RegisteredTool[] {
  const allow = caller.access?.allow ?? null;
  const key = allow === null ? "" : JSON.stringify(allow);
  let lists = visibleLists.get(registry);
  if (!lists) {
    lists = new Map();
    visibleLists.set(registry, lists);
  }
  let tools = lists.get(key);
  if (!tools) {
    if (lists.size >= MAX_LISTS) {
      const oldest = lists.keys().next().value;
      if (oldest !== undefined) lists.delete(oldest);
    }
    tools = registry.tools().filter(visibleTo(caller));
    lists.set(key, tools);
  }
  return tools;
}

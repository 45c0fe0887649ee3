import type { ToolRegistry } from "./registry.ts";
import { describeTool, type ToolInspection } from "./tool-description.ts";
import type { ProviderId, RegisteredTool } from "./types.ts";

/** A tool as the catalog lists it: its name and what `inspect` says of it. */
export type CatalogTool = ToolInspection & { name: string };

/** A provider as the catalog lists it, with the tools the caller may see. */
export type CatalogProvider = {
  id: ProviderId;
  name: string;
  /** The upstream's own header the caller's upstream key is sent in, or null when it needs none. */
  upstreamKeyHeader: string | null;
  tools: CatalogTool[];
};

export type CatalogOptions = {
  /** Only this provider (none at all when no provider has this id). */
  provider?: string;
  /**
   * Only tools whose text holds every word of the query, ignoring case: provider id and name,
   * endpoint, tool name, description, parameter names. Empty or blank: every tool.
   */
  query?: string;
  /** Only the tools this returns true for (a key's allowlist, say); a provider left with none is left out. */
  allows?: (tool: RegisteredTool) => boolean;
};

const searchTexts = new WeakMap<RegisteredTool, string>();

/** Everything a query is matched against, lower-cased, worked out once per tool. */
function searchText(tool: RegisteredTool): string {
  let text = searchTexts.get(tool);
  if (text === undefined) {
    const { input } = describeTool(tool);
    const parameterNames = [input.queryParams, input.pathParams].flatMap((schema) =>
      Object.keys((schema.properties ?? {}) as Record<string, unknown>),
    );
    text = [
      tool.provider.id,
      tool.provider.name,
      tool.endpoint,
      tool.name,
      tool.description,
      ...parameterNames,
    ]
      .join("\n")
      .toLowerCase();
    searchTexts.set(tool, text);
  }
  return text;
}

/** The query's words, lower-cased; a tool matches when its text holds each of them. */
function queryWords(query: string | undefined): string[] {
  return (query ?? "").toLowerCase().split(/\s+/).filter(Boolean);
}

/**
 * The providers and tools a caller may see, in declaration order, filtered by provider, text and
 * `allows`. Pure: the same registry and options always give the same catalog; providers with no
 * tool left are left out.
 */
export function catalogOf(registry: ToolRegistry, options: CatalogOptions = {}): CatalogProvider[] {
  const words = queryWords(options.query);
  const catalog: CatalogProvider[] = [];
  for (const provider of registry.providers) {
    if (options.provider !== undefined && provider.id !== options.provider) continue;
    const tools = registry
      .tools()
      .filter((tool) => tool.provider.id === provider.id)
      .filter((tool) => options.allows?.(tool) ?? true)
      .filter((tool) => words.every((word) => searchText(tool).includes(word)))
      .map((tool) => ({ name: tool.name, ...describeTool(tool) }));
    if (tools.length === 0) continue;
    catalog.push({
      id: provider.id,
      name: provider.name,
      upstreamKeyHeader: provider.upstreamKeyHeader,
      tools,
    });
  }
  return catalog;
}

import { type ToolName, toolName } from "../domain/key-policy.ts";
import type { Provider, ProviderDeclaration, ProviderId, RegisteredTool, ToolMethod } from "./types.ts";

const toolKey = (provider: string, method: string, endpoint: string) => `${provider} ${method} ${endpoint}`;

/** The registered tools of one deployment: only these (provider, method, endpoint) ever run. */
export class ToolRegistry {
  private readonly byKey = new Map<string, RegisteredTool>();

  constructor(readonly providers: readonly Provider[]) {
    for (const provider of providers) {
      for (const tool of provider.tools) {
        const key = toolKey(provider.id, tool.method, tool.endpoint);
        if (this.byKey.has(key)) throw new Error(`Tool declared twice: ${key}`);
        this.byKey.set(key, { ...tool, provider });
      }
    }
  }

  /** The tool a caller names; the method is matched without regard to case. */
  find(provider: string, endpoint: string, method: string): RegisteredTool | undefined {
    return this.byKey.get(toolKey(provider, method.toUpperCase(), endpoint));
  }

  /** Every tool, in declaration order. */
  tools(): RegisteredTool[] {
    return [...this.byKey.values()];
  }

  /**
   * What a caller could have meant: the tools of the provider named, or every tool; only among
   * the tools `allows` lets the caller see (a provider with none of them is as unknown as one
   * never registered).
   */
  suggestions(
    provider: string,
    allows: (tool: RegisteredTool) => boolean = () => true,
  ): { provider: ProviderId; endpoint: string; method: ToolMethod }[] {
    const visible = this.tools().filter(allows);
    const known = visible.some((tool) => tool.provider.id === provider);
    return visible
      .filter((tool) => !known || tool.provider.id === provider)
      .map((tool) => ({ provider: tool.provider.id, endpoint: tool.endpoint, method: tool.method }));
  }
}

/**
 * Builds a registry from declarations and each provider's base URL. `prices` (micro-USD, by tool
 * name, from `GATEWAY_TOOL_PRICES`) replaces the declared price of the tools it names; a price for
 * a tool that is not declared is refused.
 */
export function createRegistry(
  declarations: readonly ProviderDeclaration[],
  baseUrls: Readonly<Record<ProviderId, URL>>,
  prices: ReadonlyMap<ToolName, bigint> = new Map(),
): ToolRegistry {
  const unpriced = new Set(prices.keys());
  const registry = new ToolRegistry(
    declarations.map((declaration) => {
      const baseUrl = baseUrls[declaration.id];
      if (!baseUrl) throw new Error(`No base URL for provider ${declaration.id}`);
      const tools = declaration.tools.map((tool) => {
        const name = toolName({ provider: declaration.id, endpoint: tool.endpoint, method: tool.method });
        unpriced.delete(name);
        return { ...tool, priceMicro: prices.get(name) ?? tool.priceMicro };
      });
      return { ...declaration, tools, baseUrl };
    }),
  );
  if (unpriced.size > 0) throw new Error(`A price names no registered tool: ${[...unpriced].join(", ")}`);
  return registry;
}

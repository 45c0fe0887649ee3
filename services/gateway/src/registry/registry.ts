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

  /** What a caller could have meant: the tools of the provider named, or every tool. */
  suggestions(provider: string): { provider: ProviderId; endpoint: string; method: ToolMethod }[] {
    const known = this.providers.some((candidate) => candidate.id === provider);
    return this.tools()
      .filter((tool) => !known || tool.provider.id === provider)
      .map((tool) => ({ provider: tool.provider.id, endpoint: tool.endpoint, method: tool.method }));
  }
}

/** Builds a registry from declarations and each provider's base URL. */
export function createRegistry(
  declarations: readonly ProviderDeclaration[],
  baseUrls: Readonly<Record<ProviderId, URL>>,
): ToolRegistry {
  return new ToolRegistry(
    declarations.map((declaration) => {
      const baseUrl = baseUrls[declaration.id];
      if (!baseUrl) throw new Error(`No base URL for provider ${declaration.id}`);
      return { ...declaration, baseUrl };
    }),
  );
}

import { GatewayError } from "../errors.ts";
import { type CatalogOptions, type CatalogProvider, catalogOf } from "../registry/catalog.ts";
import type { ToolRegistry } from "../registry/registry.ts";

/**
 * One provider of the catalog, with the tools the caller may see; 404 `PROVIDER_NOT_FOUND` listing
 * the providers the caller may see otherwise (a provider whose every tool `allows` hides is as
 * unknown as one never registered).
 */
export function findProvider(
  registry: ToolRegistry,
  id: string,
  options: Pick<CatalogOptions, "allows"> = {},
): CatalogProvider {
  const [provider] = catalogOf(registry, { ...options, provider: id });
  if (provider) return provider;
  throw new GatewayError("PROVIDER_NOT_FOUND", "No provider has this id. `providers` lists the known ids.", {
    providers: catalogOf(registry, options).map((known) => known.id),
  });
}

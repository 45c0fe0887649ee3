import { createRoute, jsonResponse } from "@app/core";
import { catalogOf } from "../registry/catalog.ts";
import type { GatewayDeps } from "../runner/deps.ts";
import { visibleTo } from "../runner/find-tool.ts";
import {
  CATALOG_400,
  catalogRequestHook,
  MAX_QUERY_LENGTH,
  ProviderListSchema,
  ProvidersQuerySchema,
} from "./catalog-schemas.ts";
import { COMMON_RESPONSES, GATEWAY_KEY_SECURITY, type GatewayApp, gatewayKeyGuard } from "./shared.ts";

/** GET /v1/providers: the providers and their tools, optionally searched with `q`. */
export function registerProvidersList(app: GatewayApp, deps: GatewayDeps): void {
  const route = createRoute({
    method: "get",
    path: "/v1/providers",
    operationId: "providers_list",
    tags: ["Catalog"],
    summary: "List providers and their tools",
    description: `Every provider with its tools (those the gateway key's policy allows): endpoint, method, description, input schemas (JSON Schema, as inspect renders them), price and upstream key. With \`q\` (1 to ${MAX_QUERY_LENGTH} characters), only the tools whose text holds every word of it, ignoring case; providers left with no tool are left out.`,
    security: GATEWAY_KEY_SECURITY,
    middleware: gatewayKeyGuard(deps),
    request: { query: ProvidersQuerySchema },
    responses: {
      200: jsonResponse(ProviderListSchema, "The providers with a matching tool, in declaration order"),
      400: CATALOG_400,
      401: COMMON_RESPONSES[401],
    },
  });
  app.openapi(
    route,
    (c) =>
      c.json(
        {
          providers: catalogOf(deps.registry, {
            query: c.req.valid("query").q,
            allows: visibleTo(c.var.caller),
          }),
        },
        200,
      ),
    catalogRequestHook,
  );
}

import { createRoute, errorResponseSpec, jsonResponse } from "@app/core";
import type { GatewayDeps } from "../runner/deps.ts";
import { findProvider } from "../runner/find-provider.ts";
import { visibleTo } from "../runner/find-tool.ts";
import {
  CATALOG_400,
  CatalogProviderSchema,
  catalogRequestHook,
  NoQuerySchema,
  ProviderParamsSchema,
} from "./catalog-schemas.ts";
import { COMMON_RESPONSES, GATEWAY_KEY_SECURITY, type GatewayApp, gatewayKeyGuard } from "./shared.ts";

/** GET /v1/providers/{id}: one provider and its tools. */
export function registerProviderGet(app: GatewayApp, deps: GatewayDeps): void {
  const route = createRoute({
    method: "get",
    path: "/v1/providers/{id}",
    operationId: "provider_get",
    tags: ["Catalog"],
    summary: "Get a provider and its tools",
    description:
      "One provider with its tools (those the gateway key's policy allows; a provider with none of them is not found): endpoint, method, description, input schemas (JSON Schema, as inspect renders them), price and upstream key.",
    security: GATEWAY_KEY_SECURITY,
    middleware: gatewayKeyGuard(deps),
    request: { params: ProviderParamsSchema, query: NoQuerySchema },
    responses: {
      200: jsonResponse(CatalogProviderSchema, "The provider"),
      400: CATALOG_400,
      401: COMMON_RESPONSES[401],
      404: errorResponseSpec("No provider has this id (PROVIDER_NOT_FOUND), with `providers`: the known ids"),
    },
  });
  app.openapi(
    route,
    (c) =>
      c.json(findProvider(deps.registry, c.req.valid("param").id, { allows: visibleTo(c.var.caller) }), 200),
    catalogRequestHook,
  );
}

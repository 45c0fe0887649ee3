import { createRoute, jsonResponse } from "@app/core";
import type { GatewayDeps } from "../runner/deps.ts";
import { inspectTool } from "../runner/inspect-tool.ts";
import { InspectBodySchema, InspectionSchema, InspectQuerySchema } from "./schemas.ts";
import {
  COMMON_RESPONSES,
  GATEWAY_KEY_SECURITY,
  type GatewayApp,
  gatewayKeyGuard,
  invalidInputHook,
} from "./shared.ts";

const DESCRIPTION =
  "A tool's input schemas (JSON Schema for `queryParams` and `pathParams`), its price, and whether it needs the caller's upstream key.";

/** POST /v1/inspect and GET /v1/inspect: what a tool takes and costs. */
export function registerInspect(app: GatewayApp, deps: GatewayDeps): void {
  const responses = {
    200: jsonResponse(InspectionSchema, "The tool's description"),
    ...COMMON_RESPONSES,
  };
  const post = createRoute({
    method: "post",
    path: "/v1/inspect",
    operationId: "inspect",
    tags: ["Tools"],
    summary: "Inspect a tool",
    description: DESCRIPTION,
    security: GATEWAY_KEY_SECURITY,
    middleware: gatewayKeyGuard(deps),
    request: { body: { required: true, content: { "application/json": { schema: InspectBodySchema } } } },
    responses,
  });
  app.openapi(
    post,
    (c) => c.json(inspectTool(deps.registry, c.req.valid("json"), c.var.caller), 200),
    invalidInputHook,
  );

  const get = createRoute({
    method: "get",
    path: "/v1/inspect",
    operationId: "inspect_get",
    tags: ["Tools"],
    summary: "Inspect a tool (query string)",
    description: DESCRIPTION,
    security: GATEWAY_KEY_SECURITY,
    middleware: gatewayKeyGuard(deps),
    request: { query: InspectQuerySchema },
    responses,
  });
  app.openapi(
    get,
    (c) => c.json(inspectTool(deps.registry, c.req.valid("query"), c.var.caller), 200),
    invalidInputHook,
  );
}

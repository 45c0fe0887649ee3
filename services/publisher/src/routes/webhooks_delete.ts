import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { deleteEndpoint } from "../webhooks/endpoint-store.ts";
import type { PublisherApp } from "./deps.ts";
import { type WebhookRouteDeps, webhookIdParam, webhookNotFound } from "./webhooks-shared.ts";

/** DELETE /api/v1/webhooks/{id}: removes an endpoint, its pending deliveries and its delivery log. */
export function registerWebhooksDelete(app: PublisherApp, deps: WebhookRouteDeps): void {
  const route = createRoute({
    method: "delete",
    path: "/api/v1/webhooks/{id}",
    operationId: "webhooks_delete",
    tags: ["Webhooks"],
    summary: "Delete a webhook endpoint",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:write"),
    request: { params: webhookIdParam },
    responses: {
      200: jsonResponse(z.object({ success: z.literal(true) }), "Deleted"),
      400: errorResponseSpec("Invalid id (VALIDATION_FAILED)"),
      ...API_KEY_RESPONSES,
      404: errorResponseSpec("No such endpoint of yours (WEBHOOK_NOT_FOUND)"),
    },
  });
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    if (!(await deleteEndpoint(deps.db, c.var.caller.accountId, id))) throw webhookNotFound(id);
    return c.json({ success: true as const }, 200);
  });
}

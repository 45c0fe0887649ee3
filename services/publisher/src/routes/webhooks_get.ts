import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { findEndpoint } from "../webhooks/endpoint-store.ts";
import type { PublisherApp } from "./deps.ts";
import {
  type WebhookRouteDeps,
  WebhookSchema,
  webhookIdParam,
  webhookNotFound,
  webhookView,
} from "./webhooks-shared.ts";

/** GET /api/v1/webhooks/{id}: one of the account's endpoints (never its secrets). */
export function registerWebhooksGet(app: PublisherApp, deps: WebhookRouteDeps): void {
  const route = createRoute({
    method: "get",
    path: "/api/v1/webhooks/{id}",
    operationId: "webhooks_get",
    tags: ["Webhooks"],
    summary: "One of your webhook endpoints",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:read"),
    request: { params: webhookIdParam },
    responses: {
      200: jsonResponse(z.object({ webhook: WebhookSchema }), "The endpoint"),
      400: errorResponseSpec("Invalid id (VALIDATION_FAILED)"),
      ...API_KEY_RESPONSES,
      404: errorResponseSpec("No such endpoint of yours (WEBHOOK_NOT_FOUND)"),
    },
  });
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const endpoint = await findEndpoint(deps.db, c.var.caller.accountId, id);
    if (!endpoint) throw webhookNotFound(id);
    return c.json({ webhook: webhookView(endpoint, deps.clock.now()) }, 200);
  });
}

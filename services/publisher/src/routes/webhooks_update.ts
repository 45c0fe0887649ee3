import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { updateEndpoint } from "../webhooks/endpoint-store.ts";
import type { PublisherApp } from "./deps.ts";
import {
  type WebhookRouteDeps,
  WebhookSchema,
  webhookDescription,
  webhookEventTypes,
  webhookIdParam,
  webhookNotFound,
  webhookUrl,
  webhookView,
} from "./webhooks-shared.ts";

/**
 * PATCH /api/v1/webhooks/{id}: changes an endpoint's URL, event types, description, or turns it
 * on or off (on again after a disabling: its failure streak starts over).
 */
export function registerWebhooksUpdate(app: PublisherApp, deps: WebhookRouteDeps): void {
  const WebhookChange = z
    .object({
      url: webhookUrl(deps.webhooks.targets).optional(),
      eventTypes: webhookEventTypes.nullable().optional(),
      description: webhookDescription.nullable().optional(),
      enabled: z.boolean().optional(),
    })
    .refine((change) => Object.values(change).some((value) => value !== undefined), {
      message: "give at least one of url, eventTypes, description, enabled",
    })
    .openapi("WebhookChange");
  const route = createRoute({
    method: "patch",
    path: "/api/v1/webhooks/{id}",
    operationId: "webhooks_update",
    tags: ["Webhooks"],
    summary: "Change a webhook endpoint, or turn it on or off",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:write"),
    request: {
      params: webhookIdParam,
      body: { required: true, content: { "application/json": { schema: WebhookChange } } },
    },
    responses: {
      200: jsonResponse(z.object({ webhook: WebhookSchema }), "Updated"),
      400: errorResponseSpec("Invalid body, or a URL webhooks are never sent to (VALIDATION_FAILED)"),
      ...API_KEY_RESPONSES,
      404: errorResponseSpec("No such endpoint of yours (WEBHOOK_NOT_FOUND)"),
    },
  });
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const now = deps.clock.now();
    const endpoint = await updateEndpoint(
      deps.db,
      { accountId: c.var.caller.accountId, id, ...c.req.valid("json") },
      now,
    );
    if (!endpoint) throw webhookNotFound(id);
    return c.json({ webhook: webhookView(endpoint, now) }, 200);
  });
}

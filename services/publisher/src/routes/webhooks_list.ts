import { createRoute, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { listEndpoints } from "../webhooks/endpoint-store.ts";
import type { PublisherApp } from "./deps.ts";
import { type WebhookRouteDeps, WebhookSchema, webhookView } from "./webhooks-shared.ts";

/** GET /api/v1/webhooks: the account's endpoints (never their secrets). */
export function registerWebhooksList(app: PublisherApp, deps: WebhookRouteDeps): void {
  const route = createRoute({
    method: "get",
    path: "/api/v1/webhooks",
    operationId: "webhooks_list",
    tags: ["Webhooks"],
    summary: "Your webhook endpoints",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:read"),
    responses: {
      200: jsonResponse(z.object({ webhooks: z.array(WebhookSchema) }), "Oldest first"),
      ...API_KEY_RESPONSES,
    },
  });
  app.openapi(route, async (c) => {
    const now = deps.clock.now();
    const endpoints = await listEndpoints(deps.db, c.var.caller.accountId);
    return c.json({ webhooks: endpoints.map((endpoint) => webhookView(endpoint, now)) }, 200);
  });
}

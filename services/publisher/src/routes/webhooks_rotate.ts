import { createRoute, errorResponseSpec, jsonResponse } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { rotateSecret } from "../webhooks/endpoint-store.ts";
import type { PublisherApp } from "./deps.ts";
import {
  type WebhookRouteDeps,
  WebhookWithSecretSchema,
  webhookIdParam,
  webhookNotFound,
  webhookView,
} from "./webhooks-shared.ts";

/**
 * POST /api/v1/webhooks/{id}/rotate: a new signing secret, shown once; for 24 hours deliveries
 * carry a signature under the old one too (`webhook-signature` lists both).
 */
export function registerWebhooksRotate(app: PublisherApp, deps: WebhookRouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/api/v1/webhooks/{id}/rotate",
    operationId: "webhooks_rotate",
    tags: ["Webhooks"],
    summary: "Rotate a webhook endpoint's signing secret",
    description:
      "The old secret keeps signing for 24 hours (both signatures sent, space-separated), so receivers can switch without dropping deliveries. Rotating again within them ends the older secret at once.",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:write"),
    request: { params: webhookIdParam },
    responses: {
      200: jsonResponse(WebhookWithSecretSchema, "The new secret, shown this once"),
      400: errorResponseSpec("Invalid id (VALIDATION_FAILED)"),
      ...API_KEY_RESPONSES,
      404: errorResponseSpec("No such endpoint of yours (WEBHOOK_NOT_FOUND)"),
    },
  });
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const now = deps.clock.now();
    const rotated = await rotateSecret(
      deps.db,
      deps.webhooks.sealer,
      { accountId: c.var.caller.accountId, id },
      now,
    );
    if (!rotated) throw webhookNotFound(id);
    return c.json({ webhook: webhookView(rotated.endpoint, now), secret: rotated.secret }, 200);
  });
}

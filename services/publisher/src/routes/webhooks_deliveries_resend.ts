import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { PublisherError } from "../errors.ts";
import { resendDelivery } from "../webhooks/delivery-log.ts";
import { findEndpoint } from "../webhooks/endpoint-store.ts";
import type { PublisherApp } from "./deps.ts";
import { textField } from "./text-field.ts";
import { type WebhookRouteDeps, webhookNotFound } from "./webhooks-shared.ts";

const ResendParams = z.object({ id: textField().min(1).max(128), deliveryId: textField().min(1).max(128) });

/**
 * POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/resend: the delivery is due at once, with
 * the same webhook-id. A delivered or failed one gets one more attempt; a pending one keeps its
 * schedule, only brought forward.
 */
export function registerWebhooksDeliveriesResend(app: PublisherApp, deps: WebhookRouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/api/v1/webhooks/{id}/deliveries/{deliveryId}/resend",
    operationId: "webhooks_deliveries_resend",
    tags: ["Webhooks"],
    summary: "Send a delivery again",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:write"),
    request: { params: ResendParams },
    responses: {
      202: jsonResponse(
        z.object({ success: z.literal(true), deliveryId: z.string() }),
        "Queued: the workers send it at once",
      ),
      400: errorResponseSpec("Invalid id (VALIDATION_FAILED)"),
      ...API_KEY_RESPONSES,
      404: errorResponseSpec(
        "No such endpoint of yours, or no such delivery of it (WEBHOOK_NOT_FOUND, WEBHOOK_DELIVERY_NOT_FOUND)",
      ),
      409: errorResponseSpec(
        "The endpoint is turned off (WEBHOOK_ENDPOINT_DISABLED), or the delivery is being sent now (WEBHOOK_DELIVERY_IN_PROGRESS)",
      ),
    },
  });
  app.openapi(route, async (c) => {
    const { id, deliveryId } = c.req.valid("param");
    const endpoint = await findEndpoint(deps.db, c.var.caller.accountId, id);
    if (!endpoint) throw webhookNotFound(id);
    if (!endpoint.enabled) {
      throw new PublisherError(
        "WEBHOOK_ENDPOINT_DISABLED",
        "This endpoint is turned off; turn it on to resend.",
        {
          id,
        },
      );
    }
    const result = await resendDelivery(deps.db, { endpointId: id, deliveryId, now: deps.clock.now() });
    if (result === "not-found") {
      throw new PublisherError("WEBHOOK_DELIVERY_NOT_FOUND", "This endpoint has no delivery with this id.", {
        id,
        deliveryId,
      });
    }
    if (result === "in-flight") {
      throw new PublisherError(
        "WEBHOOK_DELIVERY_IN_PROGRESS",
        "This delivery is being sent right now; see its attempts for the outcome.",
        { id, deliveryId },
      );
    }
    return c.json({ success: true as const, deliveryId }, 202);
  });
}

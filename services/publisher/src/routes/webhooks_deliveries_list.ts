import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { encodeCursor } from "../domain/cursor.ts";
import { DELIVERY_STATUSES, listDeliveries } from "../webhooks/delivery-log.ts";
import { findEndpoint } from "../webhooks/endpoint-store.ts";
import type { PublisherApp } from "./deps.ts";
import { pageCursorParam, pageLimitParam } from "./page-query.ts";
import {
  DeliverySchema,
  deliveryView,
  type WebhookRouteDeps,
  webhookIdParam,
  webhookNotFound,
} from "./webhooks-shared.ts";

/** Page size bounds of GET /api/v1/webhooks/{id}/deliveries. */
export const DELIVERIES_PAGE = { min: 1, max: 100, default: 20 } as const;

const DeliveriesQuery = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  limit: pageLimitParam(DELIVERIES_PAGE),
  cursor: pageCursorParam(),
});

/**
 * GET /api/v1/webhooks/{id}/deliveries: the endpoint's deliveries, newest first, each with its
 * latest attempts (status, latency, the start of the answer, the error, the retry it scheduled).
 */
export function registerWebhooksDeliveriesList(app: PublisherApp, deps: WebhookRouteDeps): void {
  const route = createRoute({
    method: "get",
    path: "/api/v1/webhooks/{id}/deliveries",
    operationId: "webhooks_deliveries_list",
    tags: ["Webhooks"],
    summary: "A webhook endpoint's deliveries and their attempts, newest first",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:read"),
    request: { params: webhookIdParam, query: DeliveriesQuery },
    responses: {
      200: jsonResponse(
        z
          .object({ deliveries: z.array(DeliverySchema), nextCursor: z.string().nullable() })
          .openapi("WebhookDeliveryPage"),
        "A page of deliveries; nextCursor is null on the last page",
      ),
      400: errorResponseSpec("Invalid id, status, limit or cursor (VALIDATION_FAILED)"),
      ...API_KEY_RESPONSES,
      404: errorResponseSpec("No such endpoint of yours (WEBHOOK_NOT_FOUND)"),
    },
  });
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const query = c.req.valid("query");
    if (!(await findEndpoint(deps.db, c.var.caller.accountId, id))) throw webhookNotFound(id);
    const page = await listDeliveries(deps.db, {
      endpointId: id,
      status: query.status,
      limit: query.limit ?? DELIVERIES_PAGE.default,
      after: query.cursor,
    });
    return c.json(
      {
        deliveries: page.deliveries.map(deliveryView),
        nextCursor: page.next ? encodeCursor(page.next) : null,
      },
      200,
    );
  });
}

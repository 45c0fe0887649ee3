import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { decodeCursor, encodeCursor } from "../domain/cursor.ts";
import { DELIVERY_STATUSES, listDeliveries } from "../webhooks/delivery-log.ts";
import { findEndpoint } from "../webhooks/endpoint-store.ts";
import type { PublisherApp } from "./deps.ts";
import { textField } from "./text-field.ts";
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
  limit: z
    .string()
    .regex(/^\d{1,6}$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(DELIVERIES_PAGE.min).max(DELIVERIES_PAGE.max))
    .optional()
    .openapi({ type: "integer", minimum: 1, maximum: 100, default: 20 }),
  cursor: textField()
    .min(1)
    .max(512)
    .transform((text, context) => {
      const position = decodeCursor(text);
      if (!position) context.addIssue({ code: "custom", message: "is not a cursor this service issued" });
      return position ?? z.NEVER;
    })
    .optional()
    .openapi({ type: "string", description: "The `nextCursor` of the previous page" }),
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

import { type ServiceApp, z } from "@app/core";
import { PUBLISHER_EVENT_TYPES } from "../contracts/events.ts";

const SignatureHeaders = z.object({
  "webhook-id": z.string().openapi({
    description: "The event's id (`evt_…`): the same on every attempt of it; deduplicate on it",
  }),
  "webhook-timestamp": z.string().openapi({ description: "The attempt's time, seconds since the epoch" }),
  "webhook-signature": z.string().openapi({
    description:
      "`v1,<base64 HMAC-SHA256 of {webhook-id}.{webhook-timestamp}.{body}>`, one per valid secret, space-separated (two for 24 hours after a rotation)",
  }),
});

/**
 * Lists every event a webhook endpoint may receive as an OpenAPI 3.1 `webhooks` entry of
 * `/openapi.json`: the POST the receiver gets (Standard Webhooks headers, the `{type, timestamp,
 * data}` body), and the answer it owes (any 2xx; anything else is retried).
 */
export function registerWebhookDocs(app: ServiceApp): void {
  for (const type of PUBLISHER_EVENT_TYPES) {
    const schema = z
      .object({
        type: z.literal(type),
        timestamp: z.string().openapi({ description: "When it happened, ISO 8601 UTC with milliseconds" }),
        data: z
          .record(z.string(), z.unknown())
          .openapi({ description: "The event's payload, as GET /api/v1/events shows it (README: Events)" }),
      })
      .openapi(`WebhookEvent_${type.replace(".", "_")}`);
    app.openAPIRegistry.registerWebhook({
      method: "post",
      path: type,
      operationId: `webhook_${type.replace(".", "_")}`,
      tags: ["Webhooks"],
      summary: `The ${type} event, sent to the endpoints subscribed to it`,
      request: {
        headers: SignatureHeaders,
        body: { required: true, content: { "application/json": { schema } } },
      },
      responses: {
        200: { description: "Any 2xx acknowledges the delivery" },
        default: {
          description:
            "Anything else (a redirect included: none is followed), or no answer within 15 s, is retried on the schedule; a Retry-After is honoured",
        },
      },
    });
  }
}

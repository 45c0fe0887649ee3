import { toIso, z } from "@app/core";
import { PUBLISHER_EVENT_TYPES } from "../contracts/events.ts";
import { isStorableText } from "../domain/text.ts";
import { PublisherError } from "../errors.ts";
import type { DeliveryEntry } from "../webhooks/delivery-log.ts";
import { DELIVERY_STATUSES } from "../webhooks/delivery-log.ts";
import type { WebhookEndpoint } from "../webhooks/endpoint-store.ts";
import {
  MAX_WEBHOOK_URL_LENGTH,
  type WebhookTargetPolicy,
  webhookUrlProblem,
} from "../webhooks/target-policy.ts";
import type { WebhookRouteSettings } from "../webhooks/wiring.ts";
import type { RouteDeps } from "./deps.ts";
import { textField } from "./text-field.ts";

/** What the webhook routes are built from: every route's deps, the secrets' sealer and the target rules. */
export type WebhookRouteDeps = RouteDeps & { webhooks: WebhookRouteSettings };

const iso = (date: Date | null) => (date ? toIso(date) : null);

/** An endpoint's URL: http(s), no credentials, not an address webhooks are never sent to. */
export const webhookUrl = (policy: WebhookTargetPolicy) =>
  textField()
    .max(MAX_WEBHOOK_URL_LENGTH)
    .superRefine((text, context) => {
      // One issue per field: what the checks above refused is not looked at again.
      if (text.length > MAX_WEBHOOK_URL_LENGTH || !isStorableText(text)) return;
      const problem = webhookUrlProblem(text, policy);
      if (problem) context.addIssue({ code: "custom", message: problem });
    })
    .openapi({ example: "https://example.com/hooks/publisher", format: "uri" });

export const webhookEventTypes = z
  .array(z.enum(PUBLISHER_EVENT_TYPES))
  .min(1)
  .max(PUBLISHER_EVENT_TYPES.length)
  .transform((types) => [...new Set(types)])
  .openapi({ description: "The event types sent; leave out (or null) for every type" });

export const webhookDescription = textField().trim().max(500);

/** The `{id}` of an endpoint in a path. */
export const webhookIdParam = z.object({ id: textField().min(1).max(128) });

export const WebhookSchema = z
  .object({
    id: z.string().openapi({ example: "wh_3kTq…" }),
    url: z.string(),
    description: z.string().nullable(),
    eventTypes: z
      .array(z.enum(PUBLISHER_EVENT_TYPES))
      .nullable()
      .openapi({ description: "null: every type" }),
    enabled: z.boolean(),
    disabledReason: z
      .enum(["owner", "failing"])
      .nullable()
      .openapi({ description: "Why it is off: turned off by you, or after persistent failure" }),
    failingSince: z.string().nullable().openapi({ description: "First failure since the last success" }),
    consecutiveFailures: z.number().int(),
    previousSecretExpiresAt: z
      .string()
      .nullable()
      .openapi({ description: "Until when the secret before the last rotation still signs" }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Webhook");

/** The answer that shows a signing secret: creation and rotation, the only times it is shown. */
export const WebhookWithSecretSchema = z
  .object({
    webhook: WebhookSchema,
    secret: z.string().openapi({
      example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      description: "The signing secret (Standard Webhooks), shown this once: keep it",
    }),
  })
  .openapi("WebhookWithSecret");

/** An endpoint in the API's shape (never its secrets). */
export function webhookView(endpoint: WebhookEndpoint, now: Date) {
  const previousValid = endpoint.previousSecretUntil && endpoint.previousSecretUntil > now;
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    eventTypes: endpoint.eventTypes,
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason,
    failingSince: iso(endpoint.failingSince),
    consecutiveFailures: endpoint.consecutiveFailures,
    previousSecretExpiresAt: previousValid ? iso(endpoint.previousSecretUntil) : null,
    createdAt: toIso(endpoint.createdAt),
    updatedAt: toIso(endpoint.updatedAt),
  };
}

export const AttemptSchema = z
  .object({
    number: z.number().int(),
    startedAt: z.string(),
    finishedAt: z.string().nullable().openapi({ description: "null: in flight, or its worker died" }),
    responseStatus: z.number().int().nullable().openapi({ description: "null: no answer came" }),
    latencyMs: z.number().int().nullable(),
    responseExcerpt: z.string().nullable().openapi({ description: "The answer's first 500 characters" }),
    error: z.string().nullable(),
    retryAt: z.string().nullable().openapi({ description: "When this failure scheduled the next attempt" }),
  })
  .openapi("WebhookAttempt");

export const DeliverySchema = z
  .object({
    id: z.string().openapi({ example: "whd_0f9c…" }),
    eventId: z.string().openapi({ description: "The webhook-id header of every attempt" }),
    eventType: z.enum(PUBLISHER_EVENT_TYPES).nullable(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    nextAttemptAt: z.string().nullable().openapi({ description: "When a pending delivery is due" }),
    deliveredAt: z.string().nullable(),
    lastResponseStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: z.string(),
    attemptLog: z.array(AttemptSchema).openapi({ description: "The latest 20 attempts, newest first" }),
  })
  .openapi("WebhookDelivery");

/** A delivery in the API's shape. */
export function deliveryView(delivery: DeliveryEntry) {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    nextAttemptAt: delivery.status === "pending" ? toIso(delivery.nextAttemptAt) : null,
    deliveredAt: iso(delivery.deliveredAt),
    lastResponseStatus: delivery.lastResponseStatus,
    lastError: delivery.lastError,
    createdAt: toIso(delivery.createdAt),
    attemptLog: delivery.log.map((attempt) => ({
      ...attempt,
      startedAt: toIso(attempt.startedAt),
      finishedAt: iso(attempt.finishedAt),
      retryAt: iso(attempt.retryAt),
    })),
  };
}

export const webhookNotFound = (id: string) =>
  new PublisherError("WEBHOOK_NOT_FOUND", "You have no webhook endpoint with this id.", { id });

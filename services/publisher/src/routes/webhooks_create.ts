import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { PublisherError } from "../errors.ts";
import { createEndpoint, MAX_ENDPOINTS_PER_ACCOUNT } from "../webhooks/endpoint-store.ts";
import type { PublisherApp } from "./deps.ts";
import {
  type WebhookRouteDeps,
  WebhookWithSecretSchema,
  webhookDescription,
  webhookEventTypes,
  webhookUrl,
  webhookView,
} from "./webhooks-shared.ts";

/** POST /api/v1/webhooks: a new endpoint for the account's events, its signing secret shown once. */
export function registerWebhooksCreate(app: PublisherApp, deps: WebhookRouteDeps): void {
  const NewWebhook = z
    .object({
      url: webhookUrl(deps.webhooks.targets),
      eventTypes: webhookEventTypes.nullable().optional(),
      description: webhookDescription.nullable().optional(),
      enabled: z.boolean().optional().openapi({ default: true }),
    })
    .openapi("NewWebhook");
  const route = createRoute({
    method: "post",
    path: "/api/v1/webhooks",
    operationId: "webhooks_create",
    tags: ["Webhooks"],
    summary: "Subscribe an endpoint to your events",
    description:
      "Deliveries are signed per Standard Webhooks with the `secret` answered here (and only here: rotate it to get a new one).",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:write"),
    request: { body: { required: true, content: { "application/json": { schema: NewWebhook } } } },
    responses: {
      201: jsonResponse(WebhookWithSecretSchema, "Created"),
      400: errorResponseSpec("Invalid body, or a URL webhooks are never sent to (VALIDATION_FAILED)"),
      ...API_KEY_RESPONSES,
      409: errorResponseSpec(
        `You have ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints already (WEBHOOK_LIMIT_REACHED)`,
      ),
    },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const now = deps.clock.now();
    const created = await createEndpoint(
      deps.db,
      deps.webhooks.sealer,
      { accountId: c.var.caller.accountId, ...body },
      now,
    );
    if (created === "limit") {
      throw new PublisherError(
        "WEBHOOK_LIMIT_REACHED",
        `An account may have ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints; delete one first.`,
        { limit: MAX_ENDPOINTS_PER_ACCOUNT },
      );
    }
    return c.json({ webhook: webhookView(created.endpoint, now), secret: created.secret }, 201);
  });
}

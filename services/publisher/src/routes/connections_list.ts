import { createRoute, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { listAccountConnections } from "../store/account-connections.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";

const ConnectionSchema = z
  .object({
    id: z.string().openapi({ description: "Use it in connectionIds" }),
    platform: z.enum(["youtube", "tiktok", "bluesky"]),
    account_name: z.string(),
    account_id: z.string().openapi({ description: "The account's id on the platform" }),
  })
  .openapi("ConnectedAccount");

/** GET /api/v1/connections: the account's connected platform accounts. */
export function registerConnectionsList(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "get",
    path: "/api/v1/connections",
    operationId: "connections_list",
    tags: ["Connections"],
    summary: "Your connected platform accounts",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:read"),
    responses: {
      200: jsonResponse(z.object({ connections: z.array(ConnectionSchema) }), "Oldest first"),
      ...API_KEY_RESPONSES,
    },
  });
  app.openapi(route, async (c) => {
    const connections = await listAccountConnections(deps.db, c.var.caller.accountId);
    return c.json(
      {
        connections: connections.map((connection) => ({
          id: connection.id,
          platform: connection.platform,
          account_name: connection.accountName,
          account_id: connection.platformAccountId,
        })),
      },
      200,
    );
  });
}

import { createRoute, errorResponseSpec, jsonResponse, type ServiceApp, z } from "@app/core";
import { textField } from "../../routes/text-field.ts";
import { type ConnectFlowDeps, connectBluesky } from "../connect-flows.ts";
import { Connection, type ConnectionRouteDeps, SECURITY } from "./shared.ts";

/** POST /api/v1/connections/bluesky: connect with a handle and an app password. */
export function registerConnectionsBluesky(
  app: ServiceApp,
  routeDeps: ConnectionRouteDeps,
  deps: ConnectFlowDeps,
): void {
  const route = createRoute({
    method: "post",
    path: "/api/v1/connections/bluesky",
    operationId: "connections_bluesky",
    tags: ["Connections"],
    summary: "Connect a Bluesky account with its handle and an app password",
    security: SECURITY,
    middleware: routeDeps.keyGuard("posts:write"),
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z.object({
              handle: textField().min(3).max(253),
              appPassword: textField().min(1).max(100),
            }),
          },
        },
      },
    },
    responses: {
      200: jsonResponse(z.object({ success: z.literal(true), connection: Connection }), "Connected"),
      400: errorResponseSpec("Bluesky refused the handle or app password"),
      401: errorResponseSpec("Missing or invalid API key"),
      502: errorResponseSpec("Bluesky did not answer"),
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    const body = c.req.valid("json");
    const connection = await connectBluesky(deps, {
      accountId,
      handle: body.handle,
      appPassword: body.appPassword,
    });
    return c.json({ success: true as const, connection }, 200);
  });
}

import { createRoute, errorResponseSpec, jsonResponse, type ServiceApp, z } from "@app/core";
import { type ConnectFlowDeps, startConnect } from "../connect-flows.ts";
import { type ConnectionRouteDeps, SECURITY } from "./shared.ts";

/** POST /api/v1/connections/{youtube|tiktok}/authorize: the platform's authorize URL for this account. */
export function registerConnectionsAuthorize(
  app: ServiceApp,
  routeDeps: ConnectionRouteDeps,
  deps: ConnectFlowDeps,
): void {
  const route = createRoute({
    method: "post",
    path: "/api/v1/connections/{platform}/authorize",
    operationId: "connections_authorize",
    tags: ["Connections"],
    summary: "Start connecting a YouTube or TikTok account (returns the platform's authorize URL)",
    security: SECURITY,
    middleware: routeDeps.keyGuard("posts:write"),
    request: { params: z.object({ platform: z.enum(["youtube", "tiktok"]) }) },
    responses: {
      200: jsonResponse(
        z.object({ authorizeUrl: z.string(), expiresIn: z.number().int() }),
        "Send the user here",
      ),
      400: errorResponseSpec("Unknown platform"),
      401: errorResponseSpec("Missing or invalid API key"),
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    return c.json(await startConnect(deps, { accountId, platform: c.req.valid("param").platform }), 200);
  });
}

import { createRoute, errorResponseSpec, jsonResponse, type ServiceApp, systemClock, z } from "@app/core";
import type { Context } from "hono";
import { textField } from "../routes/text-field.ts";
import {
  type ConnectFlowDeps,
  callbackPath,
  completeConnect,
  connectBluesky,
  type OAuthPlatform,
  startConnect,
} from "./connect-flows.ts";
import { ConnectionError } from "./errors.ts";

export type ConnectionRouteDeps = Omit<ConnectFlowDeps, "clock"> & {
  clock?: ConnectFlowDeps["clock"];
  /** The caller's account from its API key (the API half's check; throws 401/403 itself). */
  authenticate(c: Context, scope: "posts:write"): Promise<{ accountId: string }>;
};

const Connection = z
  .object({ id: z.string(), platform: z.string(), account_name: z.string(), account_id: z.string() })
  .openapi("Connection");

const SECURITY = [{ apiKey: [] }];

/**
 * The connect flows: `POST /api/v1/connections/{youtube|tiktok}/authorize` returns the platform's
 * authorize URL (state bound to the caller's account); the platform sends the user back to
 * `/oauth/{platform}/callback`; `POST /api/v1/connections/bluesky` connects with an app password.
 */
export function registerConnectionRoutes(app: ServiceApp, routeDeps: ConnectionRouteDeps): void {
  const deps: ConnectFlowDeps = { ...routeDeps, clock: routeDeps.clock ?? systemClock };
  const authorize = createRoute({
    method: "post",
    path: "/api/v1/connections/{platform}/authorize",
    operationId: "connections_authorize",
    tags: ["Connections"],
    summary: "Start connecting a YouTube or TikTok account (returns the platform's authorize URL)",
    security: SECURITY,
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
  app.openapi(authorize, async (c) => {
    const { accountId } = await routeDeps.authenticate(c, "posts:write");
    return c.json(await startConnect(deps, { accountId, platform: c.req.valid("param").platform }), 200);
  });

  for (const platform of ["youtube", "tiktok"] as const satisfies OAuthPlatform[]) {
    const callback = createRoute({
      method: "get",
      path: callbackPath(platform),
      operationId: `oauth_${platform}_callback`,
      tags: ["Connections"],
      summary: `Where ${platform === "youtube" ? "Google" : "TikTok"} sends the user back after consent`,
      request: {
        query: z.object({
          state: textField().optional(),
          code: textField().optional(),
          error: textField().optional(),
          error_description: textField().optional(),
        }),
      },
      responses: {
        200: jsonResponse(z.object({ success: z.literal(true), connection: Connection }), "Connected"),
        400: errorResponseSpec("Denied, or an unknown, used or expired state"),
        502: errorResponseSpec("The platform did not answer"),
      },
    });
    app.openapi(callback, async (c) => {
      const query = c.req.valid("query");
      if (query.error) throw new ConnectionError("OAUTH_DENIED", `The platform answered ${query.error}.`);
      if (!query.state || !query.code)
        throw new ConnectionError("OAUTH_STATE_INVALID", "The callback needs code and state.");
      const connection = await completeConnect(deps, { platform, state: query.state, code: query.code });
      return c.json({ success: true as const, connection }, 200);
    });
  }

  const bluesky = createRoute({
    method: "post",
    path: "/api/v1/connections/bluesky",
    operationId: "connections_bluesky",
    tags: ["Connections"],
    summary: "Connect a Bluesky account with its handle and an app password",
    security: SECURITY,
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
  app.openapi(bluesky, async (c) => {
    const { accountId } = await routeDeps.authenticate(c, "posts:write");
    const body = c.req.valid("json");
    const connection = await connectBluesky(deps, {
      accountId,
      handle: body.handle,
      appPassword: body.appPassword,
    });
    return c.json({ success: true as const, connection }, 200);
  });
}

import { createRoute, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { listGroups } from "../store/groups.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import { GroupSchema, groupView } from "./groups-shared.ts";

/** GET /api/v1/groups: the account's groups of connections. */
export function registerGroupsList(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "get",
    path: "/api/v1/groups",
    operationId: "groups_list",
    tags: ["Groups"],
    summary: "Your groups of connections",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:read"),
    responses: {
      200: jsonResponse(z.object({ groups: z.array(GroupSchema) }), "Oldest first"),
      ...API_KEY_RESPONSES,
    },
  });
  app.openapi(route, async (c) => {
    const groups = await listGroups(deps.db, c.var.caller.accountId);
    return c.json({ groups: groups.map(groupView) }, 200);
  });
}

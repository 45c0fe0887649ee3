import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { deleteGroup } from "../store/groups.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import { groupNotFound } from "./groups-shared.ts";
import { textField } from "./text-field.ts";

/** DELETE /api/v1/groups/{id}: deletes a group; its connections and posts stay. */
export function registerGroupsDelete(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "delete",
    path: "/api/v1/groups/{id}",
    operationId: "groups_delete",
    tags: ["Groups"],
    summary: "Delete a group",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:write"),
    request: { params: z.object({ id: textField().min(1).max(128) }) },
    responses: {
      200: jsonResponse(z.object({ success: z.literal(true) }), "Deleted"),
      ...API_KEY_RESPONSES,
      404: errorResponseSpec("No such group of yours (GROUP_NOT_FOUND)"),
    },
  });
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    if (!(await deleteGroup(deps.db, c.var.caller.accountId, id))) throw groupNotFound(id);
    return c.json({ success: true as const }, 200);
  });
}

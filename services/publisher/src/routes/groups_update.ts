import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { updateGroup } from "../store/groups.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import {
  checkedConnectionIds,
  GroupSchema,
  groupConnectionIds,
  groupName,
  groupNameTaken,
  groupNotFound,
  groupView,
} from "./groups-shared.ts";
import { textField } from "./text-field.ts";

const GroupChange = z
  .object({ name: groupName.optional(), connectionIds: groupConnectionIds.optional() })
  .refine((change) => change.name !== undefined || change.connectionIds !== undefined, {
    message: "give a new name, new connectionIds, or both",
  })
  .openapi("GroupChange");

/** PATCH /api/v1/groups/{id}: renames a group and/or replaces its connections. */
export function registerGroupsUpdate(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "patch",
    path: "/api/v1/groups/{id}",
    operationId: "groups_update",
    tags: ["Groups"],
    summary: "Rename a group or change its connections",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:write"),
    request: {
      params: z.object({ id: textField().min(1).max(128) }),
      body: { required: true, content: { "application/json": { schema: GroupChange } } },
    },
    responses: {
      200: jsonResponse(z.object({ group: GroupSchema }), "Updated"),
      400: errorResponseSpec("Invalid body, or a connection that is not yours (VALIDATION_FAILED)"),
      ...API_KEY_RESPONSES,
      404: errorResponseSpec("No such group of yours (GROUP_NOT_FOUND)"),
      409: errorResponseSpec("You already have a group by this name (GROUP_NAME_TAKEN)"),
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const connectionIds =
      body.connectionIds === undefined
        ? undefined
        : await checkedConnectionIds(deps, accountId, body.connectionIds);
    const group = await updateGroup(deps.db, { accountId, id, name: body.name, connectionIds });
    if (group === "name-taken") throw groupNameTaken(body.name as string);
    if (!group) throw groupNotFound(id);
    return c.json({ group: groupView(group) }, 200);
  });
}

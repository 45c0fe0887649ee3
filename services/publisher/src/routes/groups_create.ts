import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { createGroup } from "../store/groups.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import {
  checkedConnectionIds,
  GroupSchema,
  groupConnectionIds,
  groupName,
  groupNameTaken,
  groupView,
} from "./groups-shared.ts";

const NewGroup = z.object({ name: groupName, connectionIds: groupConnectionIds }).openapi("NewGroup");

/** POST /api/v1/groups: names a bundle of the account's connections. */
export function registerGroupsCreate(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/api/v1/groups",
    operationId: "groups_create",
    tags: ["Groups"],
    summary: "Create a group of connections",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:write"),
    request: { body: { required: true, content: { "application/json": { schema: NewGroup } } } },
    responses: {
      201: jsonResponse(z.object({ group: GroupSchema }), "Created"),
      400: errorResponseSpec("Invalid body, or a connection that is not yours (VALIDATION_FAILED)"),
      ...API_KEY_RESPONSES,
      409: errorResponseSpec("You already have a group by this name (GROUP_NAME_TAKEN)"),
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    const body = c.req.valid("json");
    const connectionIds = await checkedConnectionIds(deps, accountId, body.connectionIds);
    const group = await createGroup(deps.db, { accountId, name: body.name, connectionIds });
    if (group === "name-taken") throw groupNameTaken(body.name);
    return c.json({ group: groupView(group) }, 201);
  });
}

import { z } from "@app/core";
import { POST_LIMITS } from "../domain/post-limits.ts";
import { PublisherError } from "../errors.ts";
import { findAccountConnections } from "../store/account-connections.ts";
import type { Group } from "../store/groups.ts";
import type { RouteDeps } from "./deps.ts";
import { invalidPayload } from "./prepare-post.ts";
import { textField } from "./text-field.ts";

export const GroupSchema = z
  .object({
    id: z.string().openapi({ example: "grp_3kTq…" }),
    name: z.string(),
    connection_ids: z.array(z.string()),
  })
  .openapi("Group");

export const groupName = textField().trim().min(1).max(100);
export const groupConnectionIds = z
  .array(textField().min(1).max(128))
  .min(1)
  .max(POST_LIMITS.connectionIds)
  .openapi({ description: "Ids from GET /api/v1/connections" });

export const groupView = (group: Group) => ({
  id: group.id,
  name: group.name,
  connection_ids: group.connectionIds,
});

/** The ids, each once, after checking that every one is the account's connection (400 otherwise). */
export async function checkedConnectionIds(
  deps: RouteDeps,
  accountId: string,
  ids: string[],
): Promise<string[]> {
  const unique = [...new Set(ids)];
  const found = new Set((await findAccountConnections(deps.db, accountId, unique)).map((c) => c.id));
  const issues = ids.flatMap((id, index) =>
    found.has(id)
      ? []
      : [{ path: `connectionIds.${index}`, message: `${id} is not one of your connections` }],
  );
  if (issues.length > 0) throw invalidPayload(issues);
  return unique;
}

export const groupNameTaken = (name: string) =>
  new PublisherError("GROUP_NAME_TAKEN", `You already have a group named ${name}.`, { name });

export const groupNotFound = (id: string) =>
  new PublisherError("GROUP_NOT_FOUND", "You have no group with this id.", { id });

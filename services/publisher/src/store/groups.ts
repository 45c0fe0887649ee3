import { newId } from "@app/core";
import type { Queryable } from "@app/db";

export type Group = { id: string; name: string; connectionIds: string[]; createdAt: Date };

const COLUMNS = `id, name, connection_ids AS "connectionIds", created_at AS "createdAt"`;

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === "23505";

/** The account's groups, oldest first. */
export function listGroups(db: Queryable, accountId: string): Promise<Group[]> {
  return db.query<Group>(
    `SELECT ${COLUMNS} FROM publisher.groups WHERE account_id = $1 ORDER BY created_at, id`,
    [accountId],
  );
}

export async function findGroups(db: Queryable, accountId: string, ids: readonly string[]): Promise<Group[]> {
  return db.query<Group>(
    `SELECT ${COLUMNS} FROM publisher.groups WHERE account_id = $1 AND id = ANY($2::text[])`,
    [accountId, ids],
  );
}

/** Creates a group; "name-taken" when the account already has one by that name. */
export async function createGroup(
  db: Queryable,
  input: { accountId: string; name: string; connectionIds: string[] },
): Promise<Group | "name-taken"> {
  try {
    const [group] = await db.query<Group>(
      `INSERT INTO publisher.groups (id, account_id, name, connection_ids) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
      [newId("grp"), input.accountId, input.name, input.connectionIds],
    );
    return group as Group;
  } catch (error) {
    if (isUniqueViolation(error)) return "name-taken";
    throw error;
  }
}

/** Renames a group and/or replaces its connections; undefined when the account has no such group. */
export async function updateGroup(
  db: Queryable,
  input: { accountId: string; id: string; name?: string; connectionIds?: string[] },
): Promise<Group | "name-taken" | undefined> {
  try {
    const [group] = await db.query<Group>(
      `UPDATE publisher.groups SET name = COALESCE($3, name), connection_ids = COALESCE($4, connection_ids)
       WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
      [input.accountId, input.id, input.name ?? null, input.connectionIds ?? null],
    );
    return group;
  } catch (error) {
    if (isUniqueViolation(error)) return "name-taken";
    throw error;
  }
}

/** Deletes a group (its connections stay); false when the account has no such group. */
export async function deleteGroup(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const rows = await db.query("DELETE FROM publisher.groups WHERE account_id = $1 AND id = $2 RETURNING id", [
    accountId,
    id,
  ]);
  return rows.length > 0;
}

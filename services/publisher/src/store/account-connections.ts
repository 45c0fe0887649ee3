import type { Queryable } from "@app/db";
import type { Platform } from "../contracts/post.ts";

/** A connection as the API shows and checks it (tokens are publishing's and never read here). */
export type ConnectionSummary = {
  id: string;
  platform: Platform;
  accountName: string;
  platformAccountId: string;
  status: "active" | "needs_reconnect";
};

const COLUMNS = `id, platform, account_name AS "accountName", platform_account_id AS "platformAccountId", status`;

/** The account's connections, oldest first. */
export function listAccountConnections(db: Queryable, accountId: string): Promise<ConnectionSummary[]> {
  return db.query<ConnectionSummary>(
    `SELECT ${COLUMNS} FROM publisher.connections WHERE account_id = $1 ORDER BY created_at, id`,
    [accountId],
  );
}

/** Those of `ids` that are the account's connections (others are simply absent from the answer). */
export function findAccountConnections(
  db: Queryable,
  accountId: string,
  ids: readonly string[],
): Promise<ConnectionSummary[]> {
  return db.query<ConnectionSummary>(
    `SELECT ${COLUMNS} FROM publisher.connections WHERE account_id = $1 AND id = ANY($2::text[])`,
    [accountId, ids],
  );
}

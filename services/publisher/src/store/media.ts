import type { Queryable } from "@app/db";

/** Records an upload: complete at once for v1, pending until its PUT arrives for a presigned v2 upload. */
export async function recordMedia(
  db: Queryable,
  input: {
    id: string;
    accountId: string;
    path: string;
    contentType: string;
    sizeBytes: number;
    complete: boolean;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO publisher.media (id, account_id, path, content_type, size_bytes, complete)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [input.id, input.accountId, input.path, input.contentType, input.sizeBytes, input.complete],
  );
}

/** Marks a presigned upload as arrived. */
export async function markMediaComplete(db: Queryable, path: string): Promise<void> {
  await db.query("UPDATE publisher.media SET complete = true WHERE path = $1", [path]);
}

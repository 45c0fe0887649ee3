import { holdTransaction, openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { applyPostEdit } from "../../src/store/post-edits.ts";
import { cancelScheduledPost, claimLockedTargets, lockDueCandidates } from "../../src/store/targets.ts";
import { content, insertPost, targetsOf, waitForLockWait } from "../publishing-support.ts";
import { seedAccount, seedConnection } from "../support.ts";

/**
 * A worker's claim locks a target, then writes its history (a row that references the post, so
 * PostgreSQL takes a key-share lock on the post). A writer that locks the post first (a cancel,
 * an edit, a settlement) must not take a lock that conflicts with that key-share lock, or the
 * two deadlock. PostgreSQL only (`*.postgres.test.ts`): on PGlite every transaction runs alone.
 */

describe("the post's lock and a worker's claim", () => {
  test("a cancel waiting on a target a worker is claiming loses the race cleanly instead of deadlocking", async ({
    db,
  }) => {
    const { accountId } = await seedAccount(db);
    const connection = await seedConnection(db, accountId, "bluesky");
    const postId = await insertPost(db, {
      accountId,
      connections: [{ id: connection, platform: "bluesky" }],
      content: content({ caption: "raced" }),
    });
    const worker = await openSecondHandle(db);
    const claim = holdTransaction(worker);
    try {
      const now = new Date();
      const tx = await claim.tx;
      const locked = await lockDueCandidates(tx, { now, limit: 10 });
      expect(locked.map((row) => row.id)).toHaveLength(1);

      // The cancel locks the post, then waits for the target the worker holds.
      const cancel = cancelScheduledPost(db, postId, now);
      await waitForLockWait(db, "SET status = 'canceled'");

      // The worker's claim writes its history meanwhile, and commits.
      const claimed = await claimLockedTargets(tx, {
        ids: locked.map((row) => row.id),
        workerId: "lock-order",
        now,
        leaseUntil: new Date(now.getTime() + 60_000),
      });
      expect(claimed).toHaveLength(1);
      await claim.commit();

      expect(await cancel).toBe(false);
      const [target] = await targetsOf(db, postId);
      expect(target?.status).toBe("publishing");
    } finally {
      await claim.rollback();
      await worker.close();
    }
  });

  test("an edit waiting on a target a worker is claiming answers started instead of deadlocking", async ({
    db,
  }) => {
    const { accountId } = await seedAccount(db);
    const connection = await seedConnection(db, accountId, "bluesky");
    const before = content({ caption: "before the edit" });
    const dueAt = new Date();
    const postId = await insertPost(db, {
      accountId,
      connections: [{ id: connection, platform: "bluesky" }],
      content: before,
      dueAt,
    });
    const worker = await openSecondHandle(db);
    const claim = holdTransaction(worker);
    try {
      const now = new Date();
      const tx = await claim.tx;
      const locked = await lockDueCandidates(tx, { now, limit: 10 });
      expect(locked).toHaveLength(1);

      // The edit locks the post, then waits for the target the worker holds.
      const edit = applyPostEdit(db, {
        accountId,
        postId,
        parts: ["caption"],
        base: { content: before, connectionIds: [connection], scheduledFor: dueAt },
        content: content({ caption: "after the edit" }),
        targets: [{ connectionId: connection, platform: "bluesky" }],
        scheduledFor: dueAt,
        now,
      });
      await waitForLockWait(db, "ORDER BY id FOR UPDATE");

      // The worker's claim writes its history meanwhile, and commits.
      await claimLockedTargets(tx, {
        ids: locked.map((row) => row.id),
        workerId: "lock-order",
        now,
        leaseUntil: new Date(now.getTime() + 60_000),
      });
      await claim.commit();

      expect(await edit).toEqual({ kind: "started", status: "publishing" });
      const [post] = await db.query<{ caption: string }>(
        "SELECT content->>'caption' AS caption FROM publisher.posts WHERE id = $1",
        [postId],
      );
      expect(post?.caption).toBe("before the edit");
    } finally {
      await claim.rollback();
      await worker.close();
    }
  });
});

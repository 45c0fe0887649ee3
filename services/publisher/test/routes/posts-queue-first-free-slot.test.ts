import { newId } from "@app/core";
import type { Database, Queryable, QueryOptions } from "@app/db";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { DEFAULT_QUEUE_SETTINGS } from "../../src/domain/queue-slots.ts";
import { setQueueSettings } from "../../src/store/accounts.ts";
import { firstFreeSlot, lockQueueReadSettings } from "../../src/store/posts.ts";
import { seedAccount, seedConnection } from "../support.ts";

const at = (iso: string) => new Date(iso);

async function postAt(db: Database, accountId: string, connectionIds: string[], iso: string, status: string) {
  await db.query(
    `INSERT INTO publisher.posts (id, account_id, status, content, connection_ids, platforms, scheduled_for)
     VALUES ($1, $2, $3, '{}'::jsonb, $4, ARRAY['bluesky'], $5)`,
    [newId("post"), accountId, status, connectionIds, at(iso)],
  );
}

/** Counts the statements a piece of work sends (what one queue lookup costs in round trips). */
function counting(tx: Queryable): Queryable & { statements: number } {
  const counted = {
    statements: 0,
    query: <Row>(sql: string, params?: readonly unknown[], options?: QueryOptions) => {
      counted.statements += 1;
      return tx.query<Row>(sql, params, options);
    },
    exec: (sql: string) => {
      counted.statements += 1;
      return tx.exec(sql);
    },
  };
  return counted;
}

describe("the queue's slot lookup in the store", () => {
  test("the first candidate in order that no live post of the same connections holds", async ({ db }) => {
    const { accountId } = await seedAccount(db);
    const mine = await seedConnection(db, accountId, "bluesky");
    const other = await seedConnection(db, accountId, "bluesky");
    const candidates = ["2026-07-01T09:00:00Z", "2026-07-02T09:00:00Z", "2026-07-03T09:00:00Z"].map(at);
    await postAt(db, accountId, [mine], "2026-07-01T09:00:00Z", "published");
    await postAt(db, accountId, [other, mine], "2026-07-02T09:00:00Z", "scheduled");
    expect(await firstFreeSlot(db, { accountId, connectionIds: [mine], at: candidates })).toEqual(
      at("2026-07-03T09:00:00Z"),
    );
    // Another connection's slots are free; failed and canceled (draft) posts hold none.
    expect(await firstFreeSlot(db, { accountId, connectionIds: [other], at: candidates })).toEqual(
      at("2026-07-01T09:00:00Z"),
    );
    await postAt(db, accountId, [mine], "2026-07-03T09:00:00Z", "failed");
    await postAt(db, accountId, [mine], "2026-07-03T09:00:00Z", "draft");
    expect(await firstFreeSlot(db, { accountId, connectionIds: [mine], at: candidates })).toEqual(
      at("2026-07-03T09:00:00Z"),
    );
    await postAt(db, accountId, [mine], "2026-07-03T09:00:00Z", "publishing");
    expect(await firstFreeSlot(db, { accountId, connectionIds: [mine], at: candidates })).toBeUndefined();
    expect(await firstFreeSlot(db, { accountId, connectionIds: [mine], at: [] })).toBeUndefined();
  });

  test("another account's post at the same instant does not take the slot", async ({ db }) => {
    const a = await seedAccount(db);
    const b = await seedAccount(db);
    const connection = await seedConnection(db, a.accountId, "bluesky");
    await postAt(db, b.accountId, [connection], "2026-07-01T09:00:00Z", "scheduled");
    expect(
      await firstFreeSlot(db, {
        accountId: a.accountId,
        connectionIds: [connection],
        at: [at("2026-07-01T09:00:00Z")],
      }),
    ).toEqual(at("2026-07-01T09:00:00Z"));
  });

  test("the lock and the schedule come in one statement, the free slot in a second", async ({ db }) => {
    const { accountId } = await seedAccount(db);
    const connection = await seedConnection(db, accountId, "bluesky");
    const schedule = { postsPerDay: 2 as const, allowedDays: [1, 3], timeZone: "Europe/Berlin" };
    await setQueueSettings(db, accountId, schedule);
    const found = await db.transaction(async (tx) => {
      const counted = counting(tx);
      const settings = await lockQueueReadSettings(counted, accountId);
      const slot = await firstFreeSlot(counted, {
        accountId,
        connectionIds: [connection],
        at: [at("2026-07-01T07:00:00Z")],
      });
      // The lock is held until the transaction ends.
      const [lock] = await tx.query<{ held: number }>(
        "SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()",
      );
      return { settings, slot, statements: counted.statements, held: lock?.held };
    });
    expect(found).toEqual({ settings: schedule, slot: at("2026-07-01T07:00:00Z"), statements: 2, held: 1 });
    expect(await db.transaction((tx) => lockQueueReadSettings(tx, "acct_unknown"))).toEqual(
      DEFAULT_QUEUE_SETTINGS,
    );
  });
});

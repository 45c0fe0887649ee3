import type { Database, Queryable } from "@app/db";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { markNeedsReconnect } from "../../src/store/connections.ts";
import {
  appendEvent,
  appendPostStep,
  eventsAfter,
  listEvents,
  postHistory,
  sequenceEvents,
} from "../../src/store/events.ts";
import { insertPost } from "../../src/store/posts.ts";
import { cancelScheduledPost, claimDueTargets, settleTarget } from "../../src/store/targets.ts";
import { content, waitFor } from "../publishing-support.ts";
import { seedAccount, seedConnection } from "../support.ts";

const NOW = new Date("2026-06-15T06:00:00Z");

/** Every event of the account, oldest first (PGlite and PostgreSQL alike: nothing else writes here). */
async function eventTypes(db: Queryable, accountId: string): Promise<string[]> {
  const rows = await db.query<{ type: string }>(
    "SELECT type FROM publisher.events WHERE account_id = $1 ORDER BY seq",
    [accountId],
  );
  return rows.map((row) => row.type);
}

/**
 * `db` whose transactions fail at the first statement matching `failAt`, as a worker killed in the
 * middle of one would leave it (rolled back); `ran` lists the statements run before it.
 */
function failingAt(db: Database, failAt: RegExp): { db: Database; ran: string[] } {
  const ran: string[] = [];
  const wrap = (tx: Queryable): Queryable => ({
    async query(sql, params, options) {
      if (failAt.test(sql)) throw new Error("the worker was killed here");
      ran.push(sql);
      return tx.query(sql, params, options);
    },
    exec: (sql) => tx.exec(sql),
  });
  return { db: { ...db, transaction: (work) => db.transaction((tx) => work(wrap(tx))) }, ran };
}

async function duePost(db: Database) {
  const { accountId } = await seedAccount(db);
  const connectionId = await seedConnection(db, accountId, "bluesky");
  const postId = await db.transaction((tx) =>
    insertPost(tx, {
      accountId,
      content: content(),
      targets: [{ connectionId, platform: "bluesky" }],
      scheduledFor: null,
      dueAt: NOW,
      now: NOW,
    }),
  );
  return { accountId, connectionId, postId };
}

describe("the events outbox: an event exists exactly when its state change committed", () => {
  test("a post whose transaction fails after its event was written leaves neither", async ({ db }) => {
    const { accountId } = await seedAccount(db);
    const connectionId = await seedConnection(db, accountId, "bluesky");
    const created = db.transaction(async (tx) => {
      await insertPost(tx, {
        accountId,
        content: content(),
        targets: [{ connectionId, platform: "bluesky" }],
        scheduledFor: NOW,
        dueAt: NOW,
        now: NOW,
      });
      expect(await eventTypes(tx, accountId)).toEqual(["post.scheduled"]);
      throw new Error("the worker was killed here");
    });
    await expect(created).rejects.toThrow("killed");
    expect(await db.query("SELECT id FROM publisher.posts WHERE account_id = $1", [accountId])).toEqual([]);
    expect(await eventTypes(db, accountId)).toEqual([]);
  });

  test("a settlement killed after its target.published event leaves the target running and no event; done again, both", async ({
    db,
  }) => {
    const { accountId, connectionId, postId } = await duePost(db);
    const [claimed] = await claimDueTargets(db, {
      workerId: "w1",
      limit: 10,
      now: NOW,
      leaseUntil: new Date(NOW.getTime() + 60_000),
      postId,
    });
    if (!claimed) throw new Error("nothing claimed");
    const settle = (on: Database) =>
      settleTarget(on, {
        target: claimed,
        settlement: { kind: "published", platformPostId: "at://x/app.bsky.feed.post/1", url: null },
        now: NOW,
        report: { workerId: "w1" },
      });
    // The post's status is written after the target's event: the worker dies there.
    const killed = failingAt(db, /UPDATE publisher\.posts SET status/);
    await expect(settle(killed.db)).rejects.toThrow("killed");
    expect(killed.ran.some((sql) => sql.includes("INSERT INTO publisher.events"))).toBe(true);
    const [target] = await db.query<{ status: string }>(
      "SELECT status FROM publisher.post_targets WHERE id = $1",
      [claimed.id],
    );
    expect(target?.status).toBe("publishing");
    expect(await eventTypes(db, accountId)).toEqual(["post.scheduled"]);

    expect(await settle(db)).toBe(true);
    expect(await eventTypes(db, accountId)).toEqual(["post.scheduled", "target.published", "post.published"]);
    const history = await postHistory(db, accountId, postId);
    expect(history?.entries.map((entry) => (entry.kind === "event" ? entry.type : entry.step))).toEqual([
      "post.scheduled",
      "claimed",
      "published",
      "target.published",
      "post.published",
    ]);
    const published = (await listEvents(db, { accountId, limit: 10 })).events[1];
    expect(published).toMatchObject({
      type: "target.published",
      postId,
      targetId: claimed.id,
      data: { connectionId, platform: "bluesky", platformPostId: "at://x/app.bsky.feed.post/1" },
    });
  });

  test("a cancel writes post.cancelled with it; a cancel that loses to a worker's claim writes nothing", async ({
    db,
  }) => {
    const first = await duePost(db);
    expect(await cancelScheduledPost(db, first.postId, NOW)).toBe(true);
    expect(await eventTypes(db, first.accountId)).toEqual(["post.scheduled", "post.cancelled"]);

    const second = await duePost(db);
    await claimDueTargets(db, {
      workerId: "w1",
      limit: 10,
      now: NOW,
      leaseUntil: new Date(NOW.getTime() + 60_000),
      postId: second.postId,
    });
    expect(await cancelScheduledPost(db, second.postId, NOW)).toBe(false);
    expect(await eventTypes(db, second.accountId)).toEqual(["post.scheduled"]);
  });

  test("a connection marked for reconnecting gets one event, however often it is marked", async ({ db }) => {
    const { accountId } = await seedAccount(db);
    const connectionId = await seedConnection(db, accountId, "youtube");
    await expect(
      db.transaction(async (tx) => {
        await markNeedsReconnect(tx, connectionId, "invalid_grant: Token has been revoked.", NOW);
        throw new Error("the worker was killed here");
      }),
    ).rejects.toThrow("killed");
    expect(await eventTypes(db, accountId)).toEqual([]);
    for (let mark = 0; mark < 2; mark += 1)
      await db.transaction((tx) =>
        markNeedsReconnect(tx, connectionId, "invalid_grant: Token has been revoked.", NOW),
      );
    const { events } = await listEvents(db, { accountId, limit: 10 });
    expect(events).toMatchObject([
      {
        type: "connection.reconnect_required",
        postId: null,
        data: {
          connectionId,
          platform: "youtube",
          accountName: "youtube account",
          reason: "invalid_grant: Token has been revoked.",
        },
      },
    ]);
  });

  test("a platform's answer holding a NUL or a lone surrogate is stored (replaced), never failing the change", async ({
    db,
  }) => {
    const { accountId, postId } = await duePost(db);
    await db.transaction(async (tx) => {
      await appendPostStep(tx, { postId, step: "failed", detail: { message: "bad\u0000byte \ud800" } }, NOW);
      await appendEvent(tx, { accountId, type: "post.failed", postId, data: { reason: "x\u0000" } }, NOW);
    });
    const history = await postHistory(db, accountId, postId);
    expect(history?.entries.at(-2)).toMatchObject({ detail: { message: "bad\ufffdbyte \ufffd" } });
    expect(history?.entries.at(-1)).toMatchObject({ data: { reason: "x\ufffd" } });
  });

  test("eventsAfter reads every account's events in feed order from a position, for the webhooks' fan-out", async ({
    db,
  }) => {
    const one = await duePost(db);
    const two = await duePost(db);
    const ours = (events: Awaited<ReturnType<typeof eventsAfter>>) =>
      events.filter((event) => event.accountId === one.accountId || event.accountId === two.accountId);
    // eventsAfter reads placed events only: place them first (as the fan-out does).
    const before = await waitFor(async () => {
      await sequenceEvents(db);
      const events = await eventsAfter(db, undefined, 10_000);
      return ours(events).length === 2 && events;
    }, "both accounts' events");
    expect(ours(before).map((event) => event.accountId)).toEqual([one.accountId, two.accountId]);
    const last = before.at(-1);
    if (!last) throw new Error("no events");
    await cancelScheduledPost(db, one.postId, NOW);
    const after = await waitFor(async () => {
      await sequenceEvents(db);
      const events = await eventsAfter(db, last.position, 10);
      return events.length > 0 && events;
    }, "the cancel's event");
    expect(after.map((event) => [event.type, event.accountId])).toEqual([["post.cancelled", one.accountId]]);
    expect(await eventsAfter(db, after[0]?.position, 10)).toEqual([]);
  });
});

import type { Database, Queryable } from "@app/db";
import { holdTransaction, json, openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { appendEvent, listEvents } from "../../src/store/events.ts";
import { waitFor } from "../publishing-support.ts";
import { call, publisherApp, seedAccount } from "../support.ts";

/**
 * Concurrent writers on one PostgreSQL: PostgreSQL only (`*.postgres.test.ts`). On PGlite every
 * transaction runs alone, so an event's commit order is its write order.
 */

const NOW = new Date("2026-06-15T06:00:00Z");

/** What a writer throws to roll its transaction back. */
class Rollback extends Error {}

const event = (accountId: string, n: number) => ({ accountId, type: "post.scheduled" as const, data: { n } });

describe("the events feed under concurrent writers", () => {
  test("an event written first but committed last is read after the cursor, not skipped behind it", async ({
    db,
  }) => {
    const { accountId } = await seedAccount(db);
    const [first, second] = [await openSecondHandle(db), await openSecondHandle(db)];
    // B's transaction starts first (its id is older); A then writes an event, and B another.
    const b = holdTransaction(second);
    const a = holdTransaction(first);
    try {
      const bTx = await b.tx;
      await bTx.query("SELECT pg_current_xact_id()");
      const aTx = await a.tx;
      const early = await appendEvent(aTx, event(accountId, 1), NOW);
      const late = await appendEvent(bTx, event(accountId, 2), NOW);
      const seqOf = async (tx: Queryable, id: string) =>
        (await tx.query<{ seq: number }>("SELECT seq FROM publisher.events WHERE id = $1", [id]))[0]?.seq ??
        -1;
      const earlySeq = await seqOf(aTx, early);
      const lateSeq = await seqOf(bTx, late);
      expect(earlySeq).toBeLessThan(lateSeq);
      await b.commit();

      // B's event is read while A is still open; the cursor now stands past A's (lower) seq.
      const page = await waitFor(async () => {
        const read = await listEvents(db, { accountId, limit: 10 });
        return read.events.length > 0 && read;
      }, "B's event");
      expect(page.events.map((e) => e.id)).toEqual([late]);
      const cursor = page.events[0]?.position;
      // A cursor on seq alone would now skip A's event for good:
      await a.commit();
      expect(
        await db.query("SELECT id FROM publisher.events WHERE account_id = $1 AND seq > $2", [
          accountId,
          lateSeq,
        ]),
      ).toEqual([]);
      // The feed's cursor does not.
      const next = await waitFor(async () => {
        const read = await listEvents(db, { accountId, after: cursor, limit: 10 });
        return read.events.length > 0 && read;
      }, "A's event");
      expect(next.events.map((e) => e.id)).toEqual([early]);
    } finally {
      await Promise.all([a.rollback(), b.rollback()]);
      await Promise.all([first.close(), second.close()]);
    }
  });

  test("a transaction still open holds back only its own events: the others are read at once, its own after them", async ({
    db,
  }) => {
    const { accountId } = await seedAccount(db);
    const [first, second] = [await openSecondHandle(db), await openSecondHandle(db)];
    const a = holdTransaction(first);
    try {
      const early = await appendEvent(await a.tx, event(accountId, 1), NOW);
      const late = await second.transaction((tx) => appendEvent(tx, event(accountId, 2), NOW));
      const page = await listEvents(db, { accountId, limit: 10 });
      expect(page.events.map((e) => e.id)).toEqual([late]);
      await a.commit();
      const next = await listEvents(db, { accountId, after: page.events[0]?.position, limit: 10 });
      expect(next.events.map((e) => e.id)).toEqual([early]);
      expect((await listEvents(db, { accountId, limit: 10 })).events.map((e) => e.id)).toEqual([late, early]);
    } finally {
      await a.rollback();
      await Promise.all([first.close(), second.close()]);
    }
  });

  test("six writers and a reader paging GET /api/v1/events: every committed event once, no rolled-back one", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const { app } = publisherApp(db);
    const writers = await Promise.all(
      Array.from({ length: 6 }, () => openSecondHandle(db, { maxConnections: 1 })),
    );
    const committed = new Set<string>();
    const rolledBack = new Set<string>();
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    let writing = true;
    const write = async (handle: Database, writer: number) => {
      for (let n = 0; n < 30; n += 1) {
        let id = "";
        const rollback = Math.random() < 0.1;
        await handle
          .transaction(async (tx) => {
            // Half the transactions take their id before writing: commit order then differs from seq order.
            if (Math.random() < 0.5) await tx.query("SELECT pg_current_xact_id()");
            await sleep(Math.random() * 4);
            id = await appendEvent(tx, event(accountId, writer * 100 + n), NOW);
            await sleep(Math.random() * 8);
            if (rollback) throw new Rollback();
          })
          .catch((error: unknown) => {
            if (!(error instanceof Rollback)) throw error;
          });
        (rollback ? rolledBack : committed).add(id);
      }
    };
    const read: string[] = [];
    const reader = (async () => {
      let after: string | null = null;
      const until = Date.now() + 60_000;
      while (Date.now() < until && (writing || read.length < committed.size)) {
        const res = await call(app, "GET", `/api/v1/events?limit=7${after ? `&after=${after}` : ""}`, key);
        expect(res.status).toBe(200);
        const page = (await json(res)) as {
          events: Array<{ id: string }>;
          nextCursor: string | null;
          hasMore: boolean;
        };
        read.push(...page.events.map((e) => e.id));
        after = page.nextCursor;
        if (!page.hasMore) await sleep(5);
      }
    })();
    try {
      await Promise.all(writers.map((handle, writer) => write(handle, writer)));
    } finally {
      writing = false;
      await reader;
      await Promise.all(writers.map((handle) => handle.close()));
    }
    expect(committed.size + rolledBack.size).toBe(180);
    expect(new Set(read).size).toBe(read.length);
    expect(read.filter((id) => rolledBack.has(id))).toEqual([]);
    expect(new Set(read)).toEqual(committed);
  }, 90_000);
});

/**
 * Audit 4 (held, kept as a guard): the named free-slot statement's generic plan with skewed data
 * (one account of 100,000 posts, 200 of 3): after runs for small accounts PostgreSQL switches the
 * connection to the generic plan, and for the large account it is still the index probe per
 * candidate, stopped at the first free one (the plan a custom planning picks).
 */
import { openSecondHandle, test } from "@app/testkit";
import { expect } from "vitest";
import { candidateSlots, DEFAULT_QUEUE_SETTINGS } from "../../src/domain/queue-slots.ts";
import { firstFreeSlot } from "../../src/store/posts.ts";

test("audit 4: the free-slot statement's generic plan probes the index for a 100,000-post account", {
  timeout: 120_000,
}, async ({ db }) => {
  await db.exec(`
    INSERT INTO publisher.accounts (id, name) SELECT 'acct_small_' || n, 'small' FROM generate_series(1, 200) n;
    INSERT INTO publisher.accounts (id, name) VALUES ('acct_big', 'big');
    INSERT INTO publisher.posts (id, account_id, status, content, connection_ids, platforms, scheduled_for)
      SELECT 'post_big_' || n, 'acct_big', 'scheduled', '{}', '{conn_big,conn_x}', '{bluesky}',
        timestamptz '2026-03-08 09:00Z' + n * interval '1 minute'
      FROM generate_series(0, 99999) n;
    INSERT INTO publisher.posts (id, account_id, status, content, connection_ids, platforms, scheduled_for)
      SELECT 'post_s_' || a || '_' || n, 'acct_small_' || a, 'scheduled', '{}', '{conn_s}', '{bluesky}',
        timestamptz '2026-03-08 09:00Z' + n * interval '1 day'
      FROM generate_series(1, 200) a, generate_series(1, 3) n;
    ANALYZE publisher.posts; ANALYZE publisher.accounts;
  `);
  const at = candidateSlots({ now: new Date("2026-03-07T12:00:00Z"), settings: DEFAULT_QUEUE_SETTINGS });
  const instance = await openSecondHandle(db, { maxConnections: 1 });
  try {
    for (let i = 1; i <= 8; i += 1) {
      await firstFreeSlot(instance, { accountId: `acct_small_${i}`, connectionIds: ["conn_s"], at });
    }
    const slot = await firstFreeSlot(instance, { accountId: "acct_big", connectionIds: ["conn_big"], at });
    // 100,000 minutes from 2026-03-08 09:00Z cover the daily 09:00 slots up to 2026-05-17.
    expect(slot?.toISOString()).toBe("2026-05-17T09:00:00.000Z");
    const [stats] = await instance.query<{ generic: number }>(
      "SELECT generic_plans::int AS generic FROM pg_prepared_statements WHERE name = 'publisher_first_free_slot'",
    );
    expect(stats?.generic).toBeGreaterThan(0);
    const ms = `'{${at.map((d) => d.getTime()).join(",")}}'`;
    const plan = (
      await instance.query(
        `EXPLAIN (ANALYZE) EXECUTE publisher_first_free_slot('acct_big', '{conn_big}', ${ms})`,
      )
    )
      .map((row) => Object.values(row)[0])
      .join("\n");
    expect(plan).toMatch(/Index Cond: \(\(account_id = \$1\)/); // the generic plan
    expect(plan).toMatch(/Nested Loop Anti Join/);
    expect(plan).toMatch(/Index Scan using posts_account_scheduled_for/);
    expect(plan).not.toMatch(/Hash|Seq Scan|Sort/);
  } finally {
    await instance.close();
  }
});

/**
 * Audit 4: concurrent POST /api/v1/queue for one connection with the lock and free-slot statements
 * prepared by name, once every connection runs them from its generic plan (forced, and by the
 * default after five runs), over two instances (two pools) on one database.
 */
import { json, openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { call, publisherApp, seedAccount, seedConnection } from "../support.ts";

const settings = { postsPerDay: 3, allowedDays: [0, 1, 2, 3, 4, 5, 6], timezone: "America/New_York" };

describe("audit 4: queue slots under concurrency with named statements (PostgreSQL)", () => {
  for (const mode of ["force_generic_plan", "auto"] as const) {
    test(`rounds of 16 concurrent queue requests over two instances get distinct slots (${mode})`, {
      timeout: 60_000,
    }, async ({ db }) => {
      const [{ name } = { name: "" }] = await db.query<{ name: string }>("SELECT current_database() AS name");
      await db.exec(`ALTER DATABASE ${name} SET plan_cache_mode = ${mode}`);
      const one = await openSecondHandle(db, { maxConnections: 4 });
      const two = await openSecondHandle(db, { maxConnections: 4 });
      try {
        const { key, accountId } = await seedAccount(db);
        const connection = await seedConnection(db, accountId, "bluesky");
        const apps = [
          publisherApp(one, { now: "2026-03-07T12:00:00Z" }).app,
          publisherApp(two, { now: "2026-03-07T12:00:00Z" }).app,
        ];
        const slots: string[] = [];
        const statuses: number[] = [];
        for (let round = 0; round < 5; round += 1) {
          const answers = await Promise.all(
            Array.from({ length: 16 }, async (_, n) => {
              const response = await call(apps[n % 2] as (typeof apps)[0], "POST", "/api/v1/queue", key, {
                caption: `queued ${round}.${n}`,
                connectionIds: [connection],
                settings,
              });
              statuses.push(response.status);
              return json(response);
            }),
          );
          slots.push(...answers.map((a) => a.scheduledFor as string));
        }
        const plans = await one.query<{ generic: number }>(
          "SELECT coalesce(sum(generic_plans), 0)::int AS generic FROM pg_prepared_statements WHERE name LIKE 'publisher_%'",
        );
        expect(statuses.every((s) => s === 200)).toBe(true);
        expect(new Set(slots).size).toBe(80);
        expect(plans[0]?.generic).toBeGreaterThan(0);
        const [dupes] = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM (SELECT scheduled_for FROM publisher.posts WHERE account_id = $1
           GROUP BY scheduled_for HAVING count(*) > 1) d`,
          [accountId],
        );
        expect(dupes?.n).toBe(0);
      } finally {
        await one.close();
        await two.close();
      }
    });
  }
});

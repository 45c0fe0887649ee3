/**
 * Audit 4: another instance's migration retypes a column the queue's named lock statement returns
 * (publisher.accounts.posts_per_day int → smallint; the control, in the same database, then → bigint) while this instance's pool has the statement
 * prepared on every connection. Each connection's first use after it is refused ("cached plan must
 * not change result type"); POST /api/v1/queue had no retry, so every request in flight was a 500
 * (10 of 10). The route now runs its transaction again on a renewed name: none fails.
 */
import type { Database } from "@app/db";
import { openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { call, publisherApp, seedAccount, seedConnection } from "../support.ts";

describe("audit 4: queue requests in flight when a migration retypes the lock statement's result", () => {
  for (const named of [true, false])
    test(`10 POST /api/v1/queue arriving during the migration all succeed, and so does the next burst${named ? "" : " — control: prepareAs stripped"}`, {
      timeout: 60_000,
    }, async ({ db }) => {
      const pool = await openSecondHandle(db, { maxConnections: 10 });
      // The control drops prepareAs, i.e. the statements go unnamed as before commit 1fe6499.
      const instance: Database = named
        ? pool
        : {
            ...pool,
            query: (sql, params) => pool.query(sql, params),
            transaction: (work) =>
              pool.transaction((tx) =>
                work({ query: (sql, params) => tx.query(sql, params), exec: (sql) => tx.exec(sql) }),
              ),
          };
      try {
        const { key, accountId } = await seedAccount(db);
        const connection = await seedConnection(db, accountId, "bluesky");
        const { app } = publisherApp(instance, { now: "2026-03-07T12:00:00Z" });
        const burst = (tag: string) =>
          Promise.all(
            Array.from({ length: 10 }, (_, n) =>
              call(app, "POST", "/api/v1/queue", key, {
                caption: `${tag} ${n}`,
                connectionIds: [connection],
              }).then(async (response) => ({ status: response.status, body: await response.text() })),
            ),
          );
        // Warm-up: requests wait on the account's advisory lock holding their connection, so all
        // ten connections prepare the lock statement.
        expect((await burst("warm")).map((a) => a.status)).toEqual(Array(10).fill(200));
        // Another instance's migration (its own connection, in a transaction as migrate() runs one):
        // requests arriving while it runs wait for it on the accounts table.
        let inFlight: ReturnType<typeof burst> | undefined;
        await db.transaction(async (tx) => {
          await tx.query(
            `ALTER TABLE publisher.accounts ALTER COLUMN posts_per_day TYPE ${named ? "smallint" : "bigint"}`,
          );
          inFlight = burst("after");
          await new Promise((resolve) => setTimeout(resolve, 500));
        });
        const after = await (inFlight as ReturnType<typeof burst>);
        const failed = after.filter((a) => a.status !== 200);
        const next = await burst("next");
        expect({ failed, next: next.filter((a) => a.status !== 200) }).toEqual({ failed: [], next: [] });
      } finally {
        await pool.close();
      }
    });
});

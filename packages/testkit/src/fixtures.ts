import type { Database } from "@app/db";
import { test as base } from "vitest";
import { openTestDatabase } from "./test-database.ts";

/**
 * `test` with a `db` fixture: one migrated database per test file, opened on first
 * use and closed after the file's last test.
 */
export const test = base.extend<{ db: Database }>({
  db: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest fixtures take their dependencies by destructuring
    async ({}, use) => {
      const db = await openTestDatabase();
      await use(db);
      await db.close();
    },
    { scope: "file" },
  ],
});

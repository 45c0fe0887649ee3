/**
 * A valid key's request must not fail because its last use could not be recorded (a read-only
 * standby, a lock timeout): the mark is bookkeeping, written off the request's path. And a burst
 * of requests on a key not used for a minute writes that mark once, not once per request.
 */
import type { Database } from "@app/db";
import { lastUseMarksSettled } from "@app/edge";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { publisherApp, seedAccount } from "../support.ts";

/** The database, with every statement matching `pattern` counted and, when `fail`, refused. */
function watched(
  db: Database,
  pattern: RegExp,
  options: { fail: boolean },
): { db: Database; seen: () => number } {
  let seen = 0;
  const query: Database["query"] = async (sql, params, queryOptions) => {
    if (pattern.test(sql)) {
      seen += 1;
      if (options.fail)
        throw Object.assign(new Error("cannot execute UPDATE in a read-only transaction"), { code: "25006" });
    }
    return db.query(sql, params, queryOptions);
  };
  return { db: Object.assign(Object.create(db) as Database, { query }), seen: () => seen };
}

describe("a key's last use, recorded off the request's path", () => {
  test("a valid key is answered when the write of its last use fails", async ({ db }) => {
    const account = await seedAccount(db);
    const failing = watched(db, /SET last_used_at/, { fail: true });
    const { app } = publisherApp(failing.db);
    const res = await app.request("/api/v1/posts", { headers: { "x-api-key": account.key } });
    await lastUseMarksSettled();
    expect(res.status).toBe(200);
    expect(failing.seen()).toBe(1);
  });

  test("50 concurrent requests of a cold key write its last use once, and once again a minute later", async ({
    db,
  }) => {
    const account = await seedAccount(db);
    const counted = watched(db, /SET last_used_at/, { fail: false });
    const { app, clock } = publisherApp(counted.db);
    const burst = () =>
      Promise.all(
        Array.from({ length: 50 }, () =>
          app.request("/api/v1/posts", { headers: { "x-api-key": account.key } }),
        ),
      );
    expect((await burst()).every((res) => res.status === 200)).toBe(true);
    await lastUseMarksSettled();
    expect(counted.seen()).toBe(1);
    clock.advance(61_000);
    await burst();
    await lastUseMarksSettled();
    expect(counted.seen()).toBe(2);
  });
});
